/**
 * The remote backend against a real llama-server (built here from node-llama-cpp's llama.cpp source,
 * serving the micro model's F32 GGUF): greedy streams ending in the stop id, the cache reuse it
 * reports, bans, limits, aborts, a crash mid-generation and a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MICRO_E2E_CASES, MICRO_E2E_RENDER_OPTIONS } from '../../scripts/micro-llama/e2e-cases';
import { EngineError } from '../../src/engine/errors';
import { renderIds } from '../../src/format/render';
import { EOM, EOT } from '../../src/format/special-tokens';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import type { Message } from '../../src/format/types';
import { startLlamaServer, type LlamaServer } from '../../tests/support/llama-server';
import { samplingRequest, STOP_ID_LIST } from '../../tests/support/sampling-request';
import { createRemoteBackend, type RemoteBackend } from './remote-backend';

const tokenizer = loadTokenizer();
const render = (messages: Message[]) => renderIds({ ...MICRO_E2E_RENDER_OPTIONS, messages }, tokenizer);
const question = (name: string) => MICRO_E2E_CASES.find((c) => c.name === name)!.question;
const toolPrompt = render([{ role: 'user', content: question('population (brave_search)') }]);
const chatPrompt = render([{ role: 'user', content: question('small talk (no tool)') }]);

let server: LlamaServer;
let backend: RemoteBackend;

beforeAll(async () => {
  server = await startLlamaServer();
  backend = await createRemoteBackend({ url: server.url, model: 'micro-llama' });
});
afterAll(async () => {
  await backend?.dispose();
  await server?.stop();
});

/** Runs one request; returns every id streamed (in order) and the outcome. */
async function run(prompt: readonly number[], o: Parameters<typeof samplingRequest>[1] = {}, signal = new AbortController().signal) {
  const ids: number[] = [];
  const outcome = await backend.generate(samplingRequest(prompt, o), (batch) => ids.push(...batch), signal);
  return { ids, outcome };
}

const commonPrefix = (a: readonly number[], b: readonly number[]) => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};

describe('remote backend on llama-server', () => {
  it('probes the server: llama.cpp, its context, what it serves', () => {
    expect(backend.server.kind).toBe('llama.cpp');
    expect(backend.server.contextWindow).toBe(1024);
    expect(backend.server.models.some((m) => m.endsWith('micro-llama-f32.gguf'))).toBe(true);
    expect(backend.device).toBe(`llama.cpp at ${server.url}`);
  });

  it('streams greedy ids ending in eom (128008) for a tool call; the fresh server reused nothing', async () => {
    const { ids, outcome } = await run(toolPrompt);
    expect(ids.at(-1)).toBe(EOM);
    expect(ids.slice(0, -1).some((id) => STOP_ID_LIST.includes(id))).toBe(false);
    expect(tokenizer.decode(ids.slice(0, -1))).toBe('<|python_tag|>brave_search.call(query="population of Oslo")');
    expect(outcome).toMatchObject({ reusedTokens: 0, promptTokens: toolPrompt.length, evaluatedTokens: toolPrompt.length, finishReason: 'stop', generated: ids.length });
  });

  it('streams a direct answer ending in eot (128009)', async () => {
    const { ids, outcome } = await run(chatPrompt);
    expect(ids.at(-1)).toBe(EOT);
    expect(ids.length).toBeGreaterThan(1);
    expect(outcome.finishReason).toBe('stop');
  });

  it('reports reusing its cache for a prompt that extends the last one: only the appended ids are evaluated', async () => {
    const first = await run(toolPrompt);
    const raw = tokenizer.decode(first.ids.slice(0, -1));
    const extended = render([
      { role: 'user', content: question('population (brave_search)') },
      { role: 'assistant', content: '', raw, ids: first.ids.slice(0, -1), stop: 'eom' },
      { role: 'ipython', content: '{"results": []}' },
    ]);
    expect(extended.slice(0, toolPrompt.length + first.ids.length)).toEqual([...toolPrompt, ...first.ids]);
    const second = await run(extended);
    // The server's cache holds the prompt and the generated ids, not the stop id (never fed back).
    const cached = [...toolPrompt, ...first.ids.slice(0, -1)];
    const reuse = commonPrefix(cached, extended);
    expect(reuse).toBeGreaterThan(toolPrompt.length);
    expect(second.outcome.reusedTokens).toBe(reuse);
    expect(second.outcome.evaluatedTokens).toBe(extended.length - reuse);
    expect(second.outcome.promptTokens).toBe(extended.length);
  });

  it('applies bans (sent as false, llama.cpp’s -Infinity)', async () => {
    const free = await run(chatPrompt);
    const banned = await run(chatPrompt, { ban: [free.ids[0]!] });
    expect(banned.ids[0]).not.toBe(free.ids[0]);
    expect(banned.ids).not.toContain(free.ids[0]);
  });

  it('stops at maxTokens', async () => {
    const { ids, outcome } = await run(chatPrompt, { maxTokens: 3 });
    expect(ids).toHaveLength(3);
    expect(outcome.finishReason).toBe('length');
  });

  it('an abort mid-stream resolves with what arrived, and the next request works', async () => {
    const reference = await run(chatPrompt, { ban: STOP_ID_LIST, maxTokens: 200 });
    const controller = new AbortController();
    const ids: number[] = [];
    await backend.generate(samplingRequest(chatPrompt, { ban: STOP_ID_LIST, maxTokens: 200 }), (batch) => {
      ids.push(...batch);
      if (ids.length >= 5) controller.abort();
    }, controller.signal);
    expect(ids.length).toBeGreaterThanOrEqual(5);
    expect(ids.length).toBeLessThan(200);
    expect(ids).toEqual(reference.ids.slice(0, ids.length));
    const after = await run(chatPrompt, { ban: STOP_ID_LIST, maxTokens: 200 });
    expect(after.ids).toEqual(reference.ids);
  });

  it('a prompt longer than the server’s context is context_overflow, in plain words', async () => {
    const long = Array.from({ length: 1100 }, () => 271);
    await expect(run(long)).rejects.toMatchObject({ name: 'EngineError', code: 'context_overflow', message: expect.stringMatching(/does not fit the context of the engine server at http:\/\/127\.0\.0\.1:\d+: request \(1100 tokens\) exceeds/) });
  });

  it('a server killed mid-generation is server_unreachable; after a restart the next request works, its cache reset', async () => {
    const ids: number[] = [];
    let killed: Promise<void> | null = null;
    const failure = await backend
      .generate(samplingRequest(chatPrompt, { ban: STOP_ID_LIST, maxTokens: 900 }), (batch) => {
        ids.push(...batch);
        killed ??= server.kill();
      }, new AbortController().signal)
      .then(() => null, (e: unknown) => e);
    await killed;
    expect(failure).toBeInstanceOf(EngineError);
    expect(failure).toMatchObject({ code: 'server_unreachable', message: expect.stringMatching(/lost during generation|ended the stream mid-generation/) });
    expect(ids.length).toBeLessThan(900);

    await expect(run(chatPrompt)).rejects.toMatchObject({ code: 'server_unreachable', message: expect.stringMatching(/cannot reach the engine server at .* \(connection refused: is it running\?\)/) });

    await server.restart();
    const { ids: again, outcome } = await run(toolPrompt);
    expect(again.at(-1)).toBe(EOM);
    expect(outcome.reusedTokens).toBe(0);
  });
});
