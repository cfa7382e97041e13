/**
 * The node-llama-cpp LogitsBackend on the micro model's F32 GGUF: full logits every step, a KV cache
 * that truncate rolls back exactly, reset, a context that refuses to shift, load errors.
 * (Agreement with the ONNX backend is checked in scripts/micro-llama/cross-implementation.test.ts.)
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ggufPath } from '../../scripts/setup/gguf-models';
import { EngineError } from '../../src/engine/errors';
import { VOCAB_SIZE } from '../../src/format/special-tokens';
import type { LogitsBackend, Pick } from './backend';
import { createLlamaCppBackend, llamaCppRuntime } from './llamacpp-backend';
import { argmax, type TopLogits } from '../sampler';

// "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHello!<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
const PROMPT = [128000, 128006, 882, 128007, 271, 9906, 0, 128009, 128006, 78191, 128007, 271];

let backend: LogitsBackend;
beforeAll(async () => {
  backend = await createLlamaCppBackend({ modelPath: ggufPath('micro-llama', 'F32'), contextSize: 64, threads: 1 });
});
afterAll(() => backend?.dispose());

/** Feeds `ids` and returns a copy of the logits after the last one (and their argmax). */
async function logitsAfter(ids: readonly number[]): Promise<{ logits: Float32Array; next: number }> {
  let logits = new Float32Array(0);
  const next = await backend.step(ids, (l) => {
    logits = l.slice();
    return argmax(l);
  });
  return { logits, next };
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

describe('llamacpp backend (node-llama-cpp, prebuilt CPU binary)', () => {
  it('is a CPU logits backend on the binary shipped in the npm package (nothing built or downloaded)', async () => {
    expect(backend.kind).toBe('logits');
    expect(backend.device).toBe('cpu');
    expect(await llamaCppRuntime()).toEqual({ buildType: 'prebuilt', gpu: false });
    const pkg = dirname(fileURLToPath(import.meta.resolve('node-llama-cpp')));
    // node-llama-cpp keeps what it builds or downloads under llama/localBuilds and llama/llama.cpp.
    for (const dir of ['localBuilds', 'llama.cpp']) expect(existsSync(join(pkg, '..', 'llama', dir))).toBe(false);
  });

  it('hands the sampler the whole vocabulary’s logits, and the token it picks is what step returns', async () => {
    await backend.reset();
    let seen = 0;
    const next = await backend.step(PROMPT, (l) => {
      seen = l.length;
      // An id with no embedding row in the micro model has a logit of exactly 0.
      return 127999;
    });
    expect(seen).toBe(VOCAB_SIZE);
    expect(next).toBe(127999);
  });

  it('step by step equals all at once; reset starts over', async () => {
    await backend.reset();
    const whole = await logitsAfter(PROMPT);
    await backend.reset();
    await logitsAfter(PROMPT.slice(0, 5));
    const split = await logitsAfter(PROMPT.slice(5));
    expect(split.next).toBe(whole.next);
    expect(maxAbsDiff(split.logits, whole.logits)).toBeLessThan(1e-4);
    await backend.reset();
    expect((await logitsAfter(PROMPT)).logits).toEqual(whole.logits);
  });

  it('truncate keeps exactly the first n positions', async () => {
    await backend.reset();
    const reference = await logitsAfter([...PROMPT.slice(0, 8), 1234, 5678]);
    await backend.reset();
    await logitsAfter(PROMPT);
    await backend.truncate!(8);
    const after = await logitsAfter([1234, 5678]);
    expect(after.next).toBe(reference.next);
    expect(maxAbsDiff(after.logits, reference.logits)).toBeLessThan(1e-4);
  });

  it('refuses a truncate outside (0, length)', async () => {
    await backend.reset();
    await logitsAfter(PROMPT);
    await expect(backend.truncate!(0)).rejects.toBeInstanceOf(EngineError);
    await expect(backend.truncate!(PROMPT.length)).rejects.toBeInstanceOf(EngineError);
  });

  it('what does not fit the context is context_overflow before anything runs, and the cache is kept', async () => {
    await backend.reset();
    const first = await logitsAfter(PROMPT);
    await expect(backend.step(Array.from({ length: 2000 }, () => 271), argmax)).rejects.toMatchObject({ code: 'context_overflow' });
    // Nothing was evaluated (llama.cpp pads the 64 asked for to 256; 2,000 fit in neither): the next id still follows the prompt.
    await backend.truncate!(PROMPT.length - 1);
    expect((await logitsAfter([PROMPT.at(-1)!])).next).toBe(first.next);
  });

  it('a pick that can decide from the largest logits gets them alone: the largest 256, and a bound on the rest', async () => {
    await backend.reset();
    const whole = await logitsAfter(PROMPT);
    await backend.reset();
    let top: TopLogits | null = null;
    let vectors = 0;
    const pick: Pick = Object.assign(() => {
      vectors++;
      return 0;
    }, { fromTop: (t: TopLogits) => ((top = t), whole.next) });
    expect(await backend.step(PROMPT, pick)).toBe(whole.next);
    expect(vectors).toBe(0);
    const listed = top! as TopLogits;
    expect(listed.ids.length).toBe(256);
    expect(listed.outside).toBe(VOCAB_SIZE - 256);
    const sorted = Array.from(whole.logits).sort((a, b) => b - a);
    for (let i = 0; i < listed.ids.length; i++) expect(listed.logits[i]).toBeCloseTo(whole.logits[listed.ids[i]!]!, 4);
    expect(Math.min(...Array.from(listed.logits))).toBeCloseTo(sorted[255]!, 4);
    expect(listed.outsideMax).toBeGreaterThanOrEqual(sorted[256]! - 1e-4);
  });

  it('when the largest logits cannot decide, the same position is evaluated again for more of them, then for the whole vector', async () => {
    await backend.reset();
    const whole = await logitsAfter(PROMPT);
    const next = await logitsAfter([whole.next]);
    await backend.reset();
    let seen: Float32Array | null = null;
    const offered: number[] = [];
    const pick: Pick = Object.assign(
      (l: Float32Array) => {
        seen = l.slice();
        return argmax(l);
      },
      { fromTop: (t: TopLogits) => (offered.push(t.ids.length), null) },
    );
    expect(await backend.step(PROMPT, pick)).toBe(whole.next);
    expect(offered).toEqual([256, 8192]);
    expect(maxAbsDiff(seen!, whole.logits)).toBeLessThan(1e-4);
    // The cache holds the prompt once: the next step continues it.
    expect((await logitsAfter([whole.next])).next).toBe(next.next);
  });

  it('a missing file is load_failed', async () => {
    await expect(createLlamaCppBackend({ modelPath: '/nonexistent/model.gguf', threads: 1 })).rejects.toMatchObject({ name: 'EngineError', code: 'load_failed', message: expect.stringContaining('/nonexistent/model.gguf') });
  });
});
