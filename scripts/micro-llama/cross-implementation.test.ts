/**
 * Three implementations of Llama, one set of weights: for every end-to-end prompt of the micro model
 * (both steps of each e2e case), the greedy ids of our ONNX engine, of node-llama-cpp and of a real
 * llama-server on the F32 GGUF are identical, stop id included; the first-step logits of node-llama-cpp
 * and ONNX agree to 1e-3; and llama-server reports evaluating exactly our prompt. Greedy here is what
 * the engine does: argmax after its structural bans (sent to llama-server as logit_bias false).
 * The tiny model's logits are compared too: it carries Llama 3.1 RoPE scaling (rope_freqs).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ggufPath } from '../setup/gguf-models';
import { createNodeEngine } from '../../worker/create-node-engine';
import type { Engine } from '../../worker/engine';
import type { LogitsBackend } from '../../worker/backends/backend';
import { createLlamaCppBackend } from '../../worker/backends/llamacpp-backend';
import { createOnnxBackend } from '../../worker/backends/onnx-backend';
import { createRemoteBackend, type RemoteBackend } from '../../worker/backends/remote-backend';
import { fetchOnFreshConnection } from '../../worker/backends/remote/stale-connection';
import { argmax } from '../../worker/sampler';
import { MODELS } from '../../src/engine/models';
import { renderIds } from '../../src/format/render';
import { EOM, EOT, END_OF_TEXT } from '../../src/format/special-tokens';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import type { Message } from '../../src/format/types';
import { startLlamaServer, type LlamaServer } from '../../tests/support/llama-server';
import { samplingRequest, STOP_ID_LIST, structuralBanIds } from '../../tests/support/sampling-request';
import { MICRO_E2E_CASES, MICRO_E2E_RENDER_OPTIONS } from './e2e-cases';
import { MICRO_MODEL_ID, microModelEntry } from './evaluate';

const MAX_TOKENS = 96;
const LOGIT_TOLERANCE = 1e-3;
const MODELS_DIR = new URL('../../models/', import.meta.url).pathname;
const STOP_ID = { eom: EOM, eot: EOT, end_of_text: END_OF_TEXT } as const;
const BANNED = structuralBanIds();

const tokenizer = loadTokenizer();
let engine: Engine;
let onnx: LogitsBackend;
let nlc: LogitsBackend;
let server: LlamaServer;
let remote: RemoteBackend;
/** Per prompt: the largest |logit difference| at the first step (for the report below). */
const logitDiffs: Array<[string, number]> = [];

beforeAll(async () => {
  // Float32 throughout, as ONNX computes: F32 weights, an F32 KV cache and no flash attention (llama.cpp's
  // CPU flash attention and its default F16 cache round through F16: first-step logits then differ from
  // ONNX and from a float64 reference forward by up to ~1e-2; in float32 by ~1e-5).
  server = await startLlamaServer({ args: ['-ctk', 'f32', '-ctv', 'f32', '-fa', 'off'] });
  remote = await createRemoteBackend({ url: server.url });
  nlc = await createLlamaCppBackend({ modelPath: ggufPath('micro-llama', 'F32'), contextSize: 1024, threads: 1, float32Attention: true });
  engine = createNodeEngine([microModelEntry()]);
  await engine.load(MICRO_MODEL_ID);
  onnx = (await createOnnxBackend(
    { entry: microModelEntry(), options: {}, onProgress: () => {}, signal: new AbortController().signal },
    { localModelPath: MODELS_DIR, allowRemote: false },
  )) as unknown as LogitsBackend;
}, 120_000);

afterAll(async () => {
  console.log(`first-step logits, node-llama-cpp vs ONNX, max |Δ| per prompt:\n${logitDiffs.map(([n, d]) => `  ${d.toExponential(2)}  ${n}`).join('\n')}`);
  await Promise.all([engine?.unload(), onnx?.dispose(), nlc?.dispose(), remote?.dispose()]);
  await server?.stop();
});

/** The engine's greedy ids for `prompt`, the stop id appended when one fired. */
async function onnxGreedy(prompt: number[]): Promise<number[]> {
  const r = await engine.generate({ tokens: prompt, sampling: { temperature: 0 }, maxTokens: MAX_TOKENS });
  return r.stop === 'length' || r.stop === 'abort' ? r.tokens : [...r.tokens, STOP_ID[r.stop]];
}

/** First-step logits of a logits backend (fresh cache). */
async function firstLogits(backend: LogitsBackend, prompt: readonly number[]): Promise<Float32Array> {
  await backend.reset();
  let out = new Float32Array(0);
  await backend.step(prompt, (l) => {
    out = l.slice();
    return argmax(l);
  });
  return out;
}

/** node-llama-cpp greedy through our LogitsBackend, with the engine's bans; also its first-step logits. */
async function nlcGreedy(prompt: readonly number[]): Promise<{ ids: number[]; first: Float32Array }> {
  await nlc.reset();
  const ids: number[] = [];
  let first: Float32Array | null = null;
  const pick = (l: Float32Array) => {
    first ??= l.slice();
    for (const id of BANNED) l[id] = -Infinity;
    return argmax(l);
  };
  let next = await nlc.step(prompt, pick);
  for (;;) {
    ids.push(next);
    if (STOP_ID_LIST.includes(next) || ids.length >= MAX_TOKENS) break;
    next = await nlc.step([next], pick);
  }
  return { ids, first: first! };
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

/** What llama-server says it evaluated for `prompt` (its verbose report: the count and the detokenized text). */
async function serverPrompt(prompt: readonly number[]): Promise<{ evaluated: number; text: string }> {
  const res = await fetchOnFreshConnection(fetch, `${server.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, max_tokens: 1, temperature: 0, verbose: true, cache_prompt: false }),
  });
  const body = (await res.json()) as { __verbose: { tokens_evaluated: number; prompt: string } };
  return { evaluated: body.__verbose.tokens_evaluated, text: body.__verbose.prompt };
}

async function checkPrompt(name: string, prompt: number[]): Promise<number[]> {
  const ours = await onnxGreedy(prompt);
  const viaNlc = await nlcGreedy(prompt);
  const ids: number[] = [];
  const outcome = await remote.generate(samplingRequest(prompt, { maxTokens: MAX_TOKENS }), (batch) => ids.push(...batch), new AbortController().signal);

  expect(viaNlc.ids, `${name}: node-llama-cpp`).toEqual(ours);
  expect(ids, `${name}: llama-server`).toEqual(ours);

  const diff = maxAbsDiff(viaNlc.first, await firstLogits(onnx, prompt));
  logitDiffs.push([name, diff]);
  expect(diff, `${name}: first-step logits`).toBeLessThan(LOGIT_TOLERANCE);

  expect(outcome.promptTokens).toBe(prompt.length);
  expect(outcome.reusedTokens! + outcome.evaluatedTokens!).toBe(prompt.length);
  const reported = await serverPrompt(prompt);
  expect(reported.evaluated).toBe(prompt.length);
  expect(reported.text).toBe(tokenizer.decode(prompt));
  return ours;
}

describe('micro model: ONNX, node-llama-cpp and llama-server agree on every end-to-end prompt', () => {
  it.each(MICRO_E2E_CASES.map((c) => [c.name, c] as const))('%s', async (name, c) => {
    const messages: Message[] = [{ role: 'user', content: c.question }];
    const render = () => renderIds({ ...MICRO_E2E_RENDER_OPTIONS, messages }, tokenizer);
    const first = await checkPrompt(`${name}, step 1`, render());
    expect(first.at(-1)).toBe(c.call ? EOM : EOT);
    if (!c.call) return;
    const emitted = first.slice(0, -1);
    messages.push({ role: 'assistant', content: '', raw: tokenizer.decode(emitted), ids: emitted, stop: 'eom' }, { role: 'ipython', content: c.result ?? '' });
    const second = await checkPrompt(`${name}, step 2`, render());
    expect(second.at(-1)).toBe(EOT);
  });
});

describe('tiny model (Llama 3.1 RoPE scaling as rope_freqs): node-llama-cpp and ONNX logits agree', () => {
  it('at the end of a 1,500-token prompt', async () => {
    const tinyEntry = MODELS.find((m) => m.id === 'tiny-llama')!;
    const tinyOnnx = (await createOnnxBackend(
      { entry: tinyEntry, options: {}, onProgress: () => {}, signal: new AbortController().signal },
      { localModelPath: MODELS_DIR, allowRemote: false },
    )) as unknown as LogitsBackend;
    const tinyNlc = await createLlamaCppBackend({ modelPath: ggufPath('tiny-llama', 'F32'), contextSize: 2048, threads: 1, float32Attention: true });
    try {
      const prompt = tokenizer.encode('The quick brown fox jumps over the lazy dog. '.repeat(150)).slice(0, 1500);
      const diff = maxAbsDiff(await firstLogits(tinyNlc, prompt), await firstLogits(tinyOnnx, prompt));
      logitDiffs.push(['tiny model, 1,500-token prompt', diff]);
      expect(diff).toBeLessThan(LOGIT_TOLERANCE);
    } finally {
      await tinyNlc.dispose();
      await tinyOnnx.dispose();
    }
  }, 120_000);
});
