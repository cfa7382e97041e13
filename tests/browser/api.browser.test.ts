/**
 * The standard surfaces in headless Chromium: createChatCompletions and the AI SDK provider on the
 * page's main thread, the tiny model in the real engine worker (WASM), the model's side forced with
 * ids computed here. The same scenarios as the Node tests: a plain and a streamed completion, a
 * custom-tool round trip with its cache reuse, two parallel calls answered out of order, prompts
 * byte-identical to runAgent's in the same page, and ai's generateText / streamText two-step loops.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptIds } from '../../src/agent/scripted-output';
import type { ChatCompletion, ChatCompletionChunk } from '../../src/api/openai/wire-types';
import type { GenerateStats } from '../../src/engine/contract';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import { openPage, startBrowserStack } from './harness';
import { suiteStack } from './suite-stack';

const tokenizer = loadTokenizer();
const stack = suiteStack(startBrowserStack);
const ids = (...raws: string[]) => raws.map((r) => scriptIds(r, tokenizer));
const CALL = '{"name": "get_weather", "parameters": {"city": "Paris"}}<|eot_id|>';
const ANSWER = 'It is 21 degrees in Paris.<|eot_id|>';
const STREAMED = 'Streaming works, token by token: each batch of ids becomes a delta, and the deltas add up to the whole reply.';

let opened: { page: Page; logs: string[] };
beforeAll(async () => {
  opened = await openPage(stack.browser, `${stack.vite.url}/tests/browser/pages/api.html`);
  await opened.page.waitForFunction(() => window.ready === true);
  await opened.page.evaluate(() => window.engine.load('tiny-llama', { device: 'wasm' }).then(() => undefined));
}, 300_000);
afterAll(() => opened?.page.close());

async function scenario<T>(name: string, forced: number[][]): Promise<T> {
  try {
    return (await opened.page.evaluate(({ name, forced }) => window.scenario(name, forced), { name, forced })) as T;
  } catch (e) {
    console.log(opened.logs.join('\n'));
    throw e;
  }
}

describe('createChatCompletions in the page', () => {
  it('a plain completion', async () => {
    const r = await scenario<ChatCompletion>('plain', ids('Hello there.<|eot_id|>'));
    expect(r.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'Hello there.' }, finish_reason: 'stop' });
    expect(r.usage.prompt_tokens).toBeGreaterThan(0);
  }, 120_000);

  it('a streamed completion', async () => {
    // 25 ids: more than three of the engine's 8-id batches whatever the clock does, so several deltas.
    const chunks = await scenario<ChatCompletionChunk[]>('stream', ids(`${STREAMED}<|eot_id|>`));
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(STREAMED);
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBeGreaterThan(1);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)!.usage!.completion_tokens).toBe(tokenizer.encode(STREAMED).length + 1);
  }, 120_000);

  it('a custom-tool round trip prefills only what was appended, and its prompts are what runAgent renders', async () => {
    type RoundTrip = { first: ChatCompletion; second: ChatCompletion; prompts: Array<{ ids: number[]; text: string }>; stats: GenerateStats[] };
    const r = await scenario<RoundTrip>('toolRoundTrip', ids(CALL, ANSWER));
    expect(r.first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(r.second.choices[0]!.message.content).toBe('It is 21 degrees in Paris.');
    const cached = r.first.usage.prompt_tokens + r.first.usage.completion_tokens - 1;
    expect(r.second.usage.prompt_tokens_details!.cached_tokens).toBe(cached);
    expect(r.stats[1]!.prefilledTokens).toBe(r.second.usage.prompt_tokens - cached);
    console.log(`page cache reuse (tiny, custom tool): ${r.second.usage.prompt_tokens} prompt tokens, ${cached} cached, ${r.second.usage.prompt_tokens - cached} prefilled`);
    const agent = await scenario<Array<{ ids: number[]; text: string }>>('agentPrompts', ids(CALL, ANSWER));
    expect(r.prompts.map((p) => p.text)).toEqual(agent.map((p) => p.text));
    expect(r.prompts.map((p) => p.ids)).toEqual(agent.map((p) => p.ids));
  }, 120_000);

  it('two parallel calls answered in reverse order become ipython turns in call order', async () => {
    const r = await scenario<{ first: ChatCompletion; second: ChatCompletion; prompt: string }>(
      'parallel',
      ids('{"name": "get_time", "parameters": {"city": "Oslo"}}; {"name": "get_weather", "parameters": {"city": "Oslo"}}<|eot_id|>', 'Noon and mild.<|eot_id|>'),
    );
    expect(r.first.choices[0]!.message.tool_calls!.map((c) => c.function.name)).toEqual(['get_time', 'get_weather']);
    expect(r.prompt).toContain('ipython<|end_header_id|>\n\nnoon<|eot_id|><|start_header_id|>ipython<|end_header_id|>\n\nmild<|eot_id|>');
    expect(r.second.choices[0]!.message.content).toBe('Noon and mild.');
    expect(r.second.usage.prompt_tokens_details!.cached_tokens).toBe(r.first.usage.prompt_tokens + r.first.usage.completion_tokens - 1);
  }, 120_000);
});

describe('the AI SDK provider in the page', () => {
  type Usage = { inputTokens: number; outputTokens: number; inputTokenDetails: { cacheReadTokens: number } };
  it("generateText with one tool and stopWhen: stepCountIs(3) completes a two-step loop, each step's prompt runAgent's", async () => {
    type Prompt = { ids: number[]; text: string };
    const r = await scenario<{ text: string; prompts: Prompt[]; steps: Array<{ finish: string; calls: unknown[]; usage: Usage }> }>('aiGenerate', ids(CALL, ANSWER));
    const agent = await scenario<Prompt[]>('agentPrompts', ids(CALL, ANSWER));
    expect(r.prompts.map((p) => p.text)).toEqual(agent.map((p) => p.text));
    expect(r.prompts.map((p) => p.ids)).toEqual(agent.map((p) => p.ids));
    expect(r.steps.map((s) => s.finish)).toEqual(['tool-calls', 'stop']);
    expect(r.steps[0]!.calls).toEqual([['get_weather', { city: 'Paris' }]]);
    expect(r.text).toBe('It is 21 degrees in Paris.');
    const [first, second] = r.steps.map((s) => s.usage);
    expect(second!.inputTokenDetails.cacheReadTokens).toBe(first!.inputTokens + first!.outputTokens - 1);
  }, 120_000);

  it('streamText with one tool and stopWhen: stepCountIs(3) completes a two-step loop', async () => {
    const r = await scenario<{ deltas: string[]; steps: Array<{ finish: string; results: unknown[] }> }>('aiStream', ids(CALL, ANSWER));
    expect(r.steps.map((s) => s.finish)).toEqual(['tool-calls', 'stop']);
    expect(r.steps[0]!.results).toEqual([{ city: 'Paris', temperature_c: 21 }]);
    expect(r.deltas.join('')).toBe('It is 21 degrees in Paris.');
  }, 120_000);
});
