/**
 * The peers bench's shared workload: the micro model's weights, a deterministic prompt of a given
 * context length, greedy decoding of a fixed number of new tokens with the stop ids never chosen, and
 * the figures every runner reports (decode tok/s after the first token, prefill tok/s, the ids).
 * Browser-safe: the Chromium page runs the same workload.
 */
import { Tensor, type PreTrainedModel } from '@huggingface/transformers';
import type { EngineLike } from '../src/engine/contract';
import type { ModelEntry, OnnxEntry } from '../src/engine/model-list';
import { FIRST_SPECIAL_ID, PYTHON_TAG, VOCAB_SIZE } from '../src/format/special-tokens';
import type { TextTokenizer } from '../src/format/types';

export const NEW_TOKENS = 128;

/** Every special id but the python tag: our engine bans the structural ones itself, the stops by request. */
export const BANNED = Array.from({ length: VOCAB_SIZE - FIRST_SPECIAL_ID }, (_, i) => FIRST_SPECIAL_ID + i).filter((id) => id !== PYTHON_TAG);
export const CONTEXTS = [50, 1000] as const;

/** The micro (demo) model of the list: the ONNX weights every peer reads. */
export function microModel(models: readonly ModelEntry[]): OnnxEntry {
  const micro = models.find((m) => m.demo);
  if (micro?.backend !== 'onnx') throw new Error('no demo (micro) ONNX model in models.json');
  return micro;
}

/**
 * The micro model with a context window the speed workloads fit in (its trained window is 1,024;
 * RoPE has no learned positions, so longer prompts run, they only mean nothing — speed is the point).
 */
export function benchEntry(micro: OnnxEntry): OnnxEntry {
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

/** Our engine's run: greedy NEW_TOKENS from `prompt`, then its cache emptied so the next run prefills everything. */
export async function engineRun(engine: EngineLike, prompt: number[]): Promise<RunFigures> {
  const r = await engine.generate({ tokens: prompt, maxTokens: NEW_TOKENS, sampling: { temperature: 0 }, logitsProcessors: [{ type: 'ban', tokens: BANNED }] });
  await engine.generate({ tokens: [PYTHON_TAG], maxTokens: 1 });
  return { decodeTokS: (r.stats.decodedTokens - 1) / (r.stats.decodeMs / 1000), prefillTokS: prompt.length / (r.stats.prefillMs / 1000), ids: r.tokens };
}

/**
 * transformers.js's own generate(): greedy, the same bans as bad_words_ids, timed by a streamer
 * (generate() calls put() once with the prompt, then once per new token).
 */
export async function transformersRun(model: PreTrainedModel, prompt: number[]): Promise<RunFigures> {
  let first = 0;
  let puts = 0;
  const streamer = { put: () => (++puts === 2 ? (first = performance.now()) : undefined), end: () => {} };
  const started = performance.now();
  const out = (await model.generate({
    input_ids: new Tensor('int64', BigInt64Array.from(prompt, BigInt), [1, prompt.length]),
    max_new_tokens: NEW_TOKENS,
    min_new_tokens: NEW_TOKENS,
    do_sample: false,
    bad_words_ids: BANNED.map((id) => [id]),
    streamer,
  } as never)) as Tensor;
  const ended = performance.now();
  const ids = Array.from(out.data as BigInt64Array, Number).slice(prompt.length);
  return { decodeTokS: (NEW_TOKENS - 1) / ((ended - first) / 1000), prefillTokS: prompt.length / ((first - started) / 1000), ids };
}
