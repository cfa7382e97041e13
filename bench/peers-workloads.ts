/**
 * The peers bench's shared workload: the micro model's weights, a deterministic prompt of a given
 * context length, greedy decoding of a fixed number of new tokens with the stop ids never chosen, and
 * the figures every runner reports (decode tok/s after the first token, prefill tok/s, the ids).
 * Browser-safe: the Chromium page runs the same workload.
 */
import type { ModelEntry } from '../src/engine/model-list';
import type { TextTokenizer } from '../src/format/types';

export const NEW_TOKENS = 128;
export const CONTEXTS = [50, 1000] as const;

/**
 * The micro model with a context window the speed workloads fit in (its trained window is 1,024;
 * RoPE has no learned positions, so longer prompts run, they only mean nothing — speed is the point).
 */
export function benchEntry(micro: ModelEntry): ModelEntry {
  return { ...micro, id: `${micro.id}-bench`, contextWindow: 8192, sampling: {} };
}

const WORDS = ['the', 'harbour', 'ferry', 'leaves', 'at', 'seven', 'and', 'returns', 'before', 'noon', 'while', 'gulls', 'circle', 'over', 'nets', 'drying', 'on', 'stone', 'quays', 'north', 'of', 'town'];

/**
 * A prompt of `length` ids: <|begin_of_text|> then English-like text, as text and as our ids (wllama
 * takes text only; llama.cpp's tokenizer gives the same ids for plain text, which the bench checks).
 */
export function benchPrompt(tokenizer: TextTokenizer, length: number): { text: string; ids: number[] } {
  const words: string[] = [];
  let x = 12345;
  let ids: number[] = [128000];
  while (ids.length < length) {
    x = (x * 48271) % 2147483647;
    words.push(WORDS[x % WORDS.length]!);
    ids = [128000, ...tokenizer.encode(words.join(' '))];
  }
  return { text: words.join(' '), ids };
}

export interface RunFigures {
  /** Tokens per second after the first one (which comes with the prefill). */
  decodeTokS: number;
  /** Prompt tokens per second of the prefill (the first token included). */
  prefillTokS: number;
  ids: number[];
}

export function sameIds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}
