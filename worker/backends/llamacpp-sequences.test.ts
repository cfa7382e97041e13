/**
 * The node-llama-cpp backend's context sequences (the engine's slots) on the micro model's F32 GGUF:
 * each its own KV cache, stepped in turn without disturbing the other, and no more than the context holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ggufPath } from '../../scripts/setup/gguf-models';
import { argmax } from '../sampler';
import type { LogitsBackend, LogitsSequence } from './backend';
import { createLlamaCppBackend } from './llamacpp-backend';

// "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHello!<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
const HELLO = [128000, 128006, 882, 128007, 271, 9906, 0, 128009, 128006, 78191, 128007, 271];
// The same with "Hi" as the user's words.
const HI = [128000, 128006, 882, 128007, 271, 13347, 128009, 128006, 78191, 128007, 271];

let backend: LogitsBackend;
beforeAll(async () => {
  backend = await createLlamaCppBackend({ modelPath: ggufPath('micro-llama', 'F32'), contextSize: 64, threads: 1, sequences: 2 });
});
afterAll(() => backend?.dispose());

/** Greedy ids after `prompt`, `n` of them, one step each. */
async function greedy(sequence: LogitsSequence, prompt: number[], n: number): Promise<number[]> {
  const out = [await sequence.step(prompt, argmax)];
  while (out.length < n) out.push(await sequence.step([out.at(-1)!], argmax));
  return out;
}

describe('llamacpp context sequences', () => {
  it('holds as many sequences as asked; each is its own KV cache, stepped in turn', async () => {
    expect(backend.maxSequences).toBe(2);
    const aloneHello = await greedy(backend, HELLO, 6);
    await backend.reset();
    const other = await backend.openSequence!();
    const aloneHi = await greedy(other, HI, 6);
    await other.reset();

    // Interleaved step by step: each sequence gives what it gave alone.
    const a = [await backend.step(HELLO, argmax)];
    const b = [await other.step(HI, argmax)];
    while (a.length < 6) {
      a.push(await backend.step([a.at(-1)!], argmax));
      b.push(await other.step([b.at(-1)!], argmax));
    }
    expect(a).toEqual(aloneHello);
    expect(b).toEqual(aloneHi);

    // Rolling one back leaves the other as it was: both continue as alone.
    await other.truncate!(HI.length);
    expect(await other.step([aloneHi[0]!], argmax)).toBe(aloneHi[1]);
    expect(await backend.step([a.at(-1)!], argmax)).toBe((await continued(HELLO, aloneHello))[6]);

    // No third sequence in a two-sequence context; closing one frees it for the next open.
    await expect(backend.openSequence!()).rejects.toThrow();
    await other.close();
    const again = await backend.openSequence!();
    expect(await greedy(again, HI, 6)).toEqual(aloneHi);
    await again.close();
  });
});

/** The greedy continuation of `prompt` one id past `ids`, on a fresh backend. */
async function continued(prompt: number[], ids: number[]): Promise<number[]> {
  const fresh = await createLlamaCppBackend({ modelPath: ggufPath('micro-llama', 'F32'), contextSize: 64, threads: 1 });
  try {
    return await greedy(fresh, prompt, ids.length + 1);
  } finally {
    await fresh.dispose();
  }
}
