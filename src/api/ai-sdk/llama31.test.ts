/**
 * The AI SDK provider in Node under `ai`'s own generateText / streamText: two-step tool loops with
 * stopWhen: stepCountIs(3) on the tiny model (forced) and on the micro model (its own code call),
 * prompts byte-identical to runAgent's, cache reuse from the engine's stats, and refused options.
 */
import { UnsupportedFunctionalityError } from '@ai-sdk/provider';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, ofType } from '../../agent/collect-events';
import { runAgent } from '../../agent/run-agent';
import { forceSteps } from '../../../tests/support/force-steps';
import { scriptIds } from '../../agent/scripted-output';
import { PYTHON_TAG } from '../../format/special-tokens';
import { loadTokenizer } from '../../format/tokenizer/load-node';
import { defineCustomTool } from '../../tools/custom-tool';
import { createNodeEngine } from '../../../worker/create-node-engine';
import type { Engine } from '../../../worker/engine';
import { recordingEngine, type RecordingEngine } from '../../../tests/support/recording-engine';
import type { ChatTurnResult } from '../chat-types';
import { llama31 } from './llama31';

const tokenizer = loadTokenizer();
const DATE = '11 August 2026';
const QUESTION = 'Weather in Paris?';
// 22 ids: the answer spans several of the engine's 8-id batches whatever the clock does.
const ANSWER = 'It is 21 degrees in Paris, with a light breeze from the west and clear skies until the evening.';
const SCRIPTS = ['{"name": "get_weather", "parameters": {"city": "Paris"}}<|eot_id|>', `${ANSWER}<|eot_id|>`];
const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const;
let node: Engine;
let engine: RecordingEngine;
const turns: ChatTurnResult[] = [];
const executed: unknown[] = [];

beforeAll(async () => {
  node = createNodeEngine();
  await node.load('tiny-llama');
  engine = recordingEngine(node, tokenizer);
});
afterAll(() => node.unload());

const model = () => llama31(engine, { date: DATE, onTurn: (t) => turns.push(t) });
const tools = {
  get_weather: tool({
    description: 'Current weather for a city',
    inputSchema: jsonSchema<{ city: string }>(schema),
    execute: async (input) => (executed.push(input), { city: input.city, temperature_c: 21 }),
  }),
};
const force = () => engine.forceNextRun(SCRIPTS.map((s) => scriptIds(s, tokenizer)));

describe('llama31 under ai 6', () => {
  it('generateText runs a two-step tool loop; the second step prefills only what it appended', async () => {
    force();
    executed.length = 0;
    const r = await generateText({ model: model(), prompt: QUESTION, tools, stopWhen: stepCountIs(3) });
    expect(r.steps).toHaveLength(2);
    expect(r.steps[0]!.finishReason).toBe('tool-calls');
    expect(r.steps[0]!.toolCalls.map((c) => [c.toolName, c.input])).toEqual([['get_weather', { city: 'Paris' }]]);
    expect(executed).toEqual([{ city: 'Paris' }]);
    expect(r.text).toBe(ANSWER);
    expect(r.finishReason).toBe('stop');
    const [first, second] = r.steps.map((s) => s.usage);
    const cached = first!.inputTokens! + first!.outputTokens! - 1;
    expect(second!.inputTokenDetails.cacheReadTokens).toBe(cached);
    expect(engine.calls.at(-1)!.result!.stats.prefilledTokens).toBe(second!.inputTokens! - cached);
    console.log(`ai-sdk cache reuse (tiny, custom tool): step 2 ${second!.inputTokens} prompt tokens, ${cached} cached, ${second!.inputTokens! - cached} prefilled`);
  });

  it('streamText runs the same loop, streaming the answer', async () => {
    force();
    const r = streamText({ model: model(), prompt: QUESTION, tools, stopWhen: stepCountIs(3) });
    const deltas: string[] = [];
    for await (const d of r.textStream) deltas.push(d);
    expect(deltas.join('')).toBe(ANSWER);
    expect(deltas.length).toBeGreaterThan(1);
    const steps = await r.steps;
    expect(steps.map((s) => s.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(steps[0]!.toolResults.map((t) => t.output)).toEqual([{ city: 'Paris', temperature_c: 21 }]);
  });

  it('each step sends the prompt runAgent renders for the same conversation, byte for byte', async () => {
    const weather = defineCustomTool({ name: 'get_weather', description: 'Current weather for a city', parameters: schema, readOnly: true, execute: async ({ city }) => ({ city, temperature_c: 21 }) });
    const agent = await collect(runAgent({ engine: node, tokenizer, tools: [weather], conversation: { date: DATE, messages: [{ role: 'user', content: QUESTION }] }, logitsProcessors: forceSteps(SCRIPTS, tokenizer) }));
    const expected = ofType(agent, 'step-finish').map((s) => s.prompt);
    force();
    const before = turns.length;
    await generateText({ model: model(), prompt: QUESTION, tools, stopWhen: stepCountIs(3) });
    const sent = turns.slice(before).map((t) => t.prompt);
    expect(sent.map((p) => p.text)).toEqual(expected.map((p) => p.text));
    expect(sent.map((p) => p.ids)).toEqual(expected.map((p) => p.ids));
  });

  it('a call the model botched reaches the AI SDK as an invalid tool call; its error goes back as the result and the loop goes on', async () => {
    const botched = '{"name": "get_weather", "parameters": {"city": }';
    engine.forceNextRun([scriptIds(`${botched}<|eot_id|>`, tokenizer), scriptIds('Sorry, let me retry.<|eot_id|>', tokenizer)]);
    const before = turns.length;
    const r = await generateText({ model: model(), prompt: QUESTION, tools, stopWhen: stepCountIs(3) });
    expect(r.steps[0]!.content.map((p) => p.type)).toEqual(['tool-call', 'tool-error']);
    expect(r.text).toBe('Sorry, let me retry.');
    const second = turns[before + 1]!;
    expect(second.prompt.text).toContain(`${botched}<|eot_id|><|start_header_id|>ipython<|end_header_id|>\n\n{"error": "Invalid input for tool get_weather: JSON parsing failed`);
    const first = turns[before]!.usage;
    expect(second.usage.cachedTokens).toBe(first.promptTokens + first.completionTokens - 1);
  });

  it("toolChoice 'none' reaches the engine as bans", async () => {
    engine.forceNextRun([scriptIds('No tools.<|eot_id|>', tokenizer)]);
    const r = await generateText({ model: model(), prompt: QUESTION, tools, toolChoice: 'none' });
    expect(r.text).toBe('No tools.');
    expect(engine.calls.at(-1)!.request.logitsProcessors).toEqual([{ type: 'ban', tokens: [PYTHON_TAG, 128008] }]);
  });

  it('cancelling the stream stops the generation cleanly (an abort, not an engine failure)', async () => {
    const { stream } = await model().doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'Talk' }] }], maxOutputTokens: 2000 });
    const reader = stream.getReader();
    while ((await reader.read()).value?.type !== 'text-delta');
    await reader.cancel();
    await node.generate({ tokens: [128000], maxTokens: 1 }); // queued behind the cancelled run: it has ended
    const run = engine.calls.at(-1)!;
    expect(run.result?.stop).toBe('abort');
    expect(run.result!.stats.decodedTokens).toBeLessThan(2000);
  });

  it('responseFormat json: the reply is JSON valid against the schema (Output.object)', async () => {
    const schema = { type: 'object', properties: { answer: { enum: ['yes', 'no'] } }, required: ['answer'], additionalProperties: false } as const;
    const r = await model().doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }], responseFormat: { type: 'json', schema }, maxOutputTokens: 30, seed: 1, temperature: 1 });
    const text = r.content.find((p) => p.type === 'text')!.text;
    expect(['yes', 'no']).toContain((JSON.parse(text) as { answer: string }).answer);
  });

  it('refuses what it cannot honour, naming it', async () => {
    const m = model();
    const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'x' }] }];
    await expect(m.doGenerate({ prompt, responseFormat: { type: 'json', schema: { type: 'object', not: { required: ['a'] } } } })).rejects.toBeInstanceOf(UnsupportedFunctionalityError);
    await expect(m.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: new URL('https://x.test/a.png') }] }] })).rejects.toThrow(/file parts are not supported/);
    await expect(m.doGenerate({ prompt, tools: [{ type: 'function', name: 'brave_search', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }] })).rejects.toThrow(/\{"query": string\}/);
    await expect(m.doGenerate({ prompt, providerOptions: { llama31: { grammar: 'x' } } })).rejects.toThrow(/providerOptions\.llama31\.grammar/);
  });
});

describe('llama31 with the micro model, unforced', () => {
  let micro: Engine;
  beforeAll(async () => {
    micro = createNodeEngine();
    await micro.load('micro-llama');
  });
  afterAll(() => micro.unload());

  it("a tool named code_interpreter is Llama's built-in: the model calls it, the AI SDK runs it, the model answers", async () => {
    const ran: string[] = [];
    const r = await generateText({
      model: llama31(micro, { tokenizer, date: DATE }),
      prompt: 'Use Python to add up the numbers from 1 to 100.',
      tools: {
        code_interpreter: tool({
          description: 'Runs Python',
          inputSchema: jsonSchema<{ code: string }>({ type: 'object', properties: { code: { type: 'string' } }, required: ['code'] }),
          execute: async ({ code }) => (ran.push(code), { stdout: '5050\n' }),
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(ran).toEqual(['print(sum(range(1, 100 + 1)))']);
    expect(r.steps).toHaveLength(2);
    expect(r.text).toContain('5050');
    const [first, second] = r.steps.map((s) => s.usage);
    expect(second!.inputTokenDetails.cacheReadTokens).toBe(first!.inputTokens! + first!.outputTokens! - 1);
  });
});
