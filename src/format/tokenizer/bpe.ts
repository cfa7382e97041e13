/**
 * Llama 3's byte-level BPE encoder and decoder, built from a parsed tokenizer.json. Browser-safe: no
 * Node imports (the worker fetches tokenizer.json and calls `createTokenizer`).
 *
 * Invariants:
 * - `encode` treats all text as content: ids are always < FIRST_SPECIAL_ID (128000), whatever the text
 *   contains (`<|eot_id|>` becomes ordinary tokens). Special ids come only from the renderer.
 * - `encode` gives the ids of Meta's encoder (tiktoken) and Hugging Face's Rust tokenizers: pre-tokenize
 *   with Rust regex semantics (pretokenize.ts), then per piece, with `ignore_merges` a piece that is
 *   itself in the vocabulary is that one id, otherwise the lowest-ranked adjacent pair is merged first,
 *   leftmost among equals, until no pair has a merge.
 * - Lone surrogates in the input are encoded as U+FFFD (what UTF-8 can represent).
 * - `decode(encode(x)) === x` for well-formed text; special ids decode to their 3.1 names; bytes that
 *   do not form complete UTF-8 (a token boundary inside a character, at the end) decode to U+FFFD.
 */

import type { TextTokenizer } from '../types';
import { FIRST_SPECIAL_ID, isSpecialId, specialTokenName } from '../special-tokens';
import { charsToBytes } from './byte-level';
import { MergeTable } from './merge-table';
import { LLAMA3_SPLIT_PATTERN, pretokenize } from './pretokenize';

export interface TokenizerOptions {
  /** Most pieces whose BPE result is remembered (oldest forgotten first). Default 50,000. */
  cacheSize?: number;
}

/** The parts of tokenizer.json this encoder reads. */
interface TokenizerJson {
  model: {
    type: string;
    vocab: Record<string, number>;
    merges: Array<string | [string, string]>;
    ignore_merges?: boolean;
    byte_fallback?: boolean;
  };
  normalizer: unknown;
  pre_tokenizer: unknown;
}

const DEFAULT_CACHE_SIZE = 50_000;
/** Heap entries pack (rank, position) into one number; positions are < 2^32. */
const POS_RADIX = 2 ** 32;

/** A parsed, checked vocabulary: id → bytes, text → id, byte → id, pair → merge rank. */
interface Model {
  /** All token bytes back to back; id i is `bytes[offsets[i]..offsets[i+1])`. */
  bytes: Uint8Array;
  offsets: Uint32Array;
  /** Tokens whose bytes are complete UTF-8, keyed by their text (the fast path of `encode`). */
  byText: Map<string, number>;
  /** Id of the single-byte token for each byte value. */
  byteIds: Int32Array;
  /** (left, right) → rank of the merge that joins them. */
  mergeRank: MergeTable;
  /** Id produced by the merge of each rank. */
  mergeResult: Int32Array;
  ignoreMerges: boolean;
}

/**
 * A `TextTokenizer` over a Llama 3 tokenizer.json (parsed). Throws if the file is not Llama 3's kind
 * (byte-level BPE, Llama 3 split regex, no normalizer, ordinary ids 0..n-1 below 128000, all 256
 * single bytes present, every merge inside the vocabulary). The file's added tokens are not read:
 * special ids are named by special-tokens.ts, so a Llama 3.0 file decodes them with 3.1 names too.
 */
export function createTokenizer(tokenizerJson: object, options: TokenizerOptions = {}): TextTokenizer {
  const model = buildModel(checkShape(tokenizerJson));
  const cacheSize = options.cacheSize ?? DEFAULT_CACHE_SIZE;
  const cache = new Map<string, number[]>();
  const specialBytes = new Map<number, Uint8Array>();
  const utf8 = new TextEncoder();
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

  function encodePiece(piece: string): number[] {
    const cached = cache.get(piece);
    if (cached !== undefined) return cached;
    const ids = mergeBytes(model, utf8.encode(piece));
    if (cache.size >= cacheSize) cache.delete(cache.keys().next().value!);
    cache.set(piece, ids);
    return ids;
  }

  function tokenBytesView(id: number): Uint8Array {
    if (!Number.isInteger(id)) throw new RangeError(`not a token id: ${id}`);
    if (id >= 0 && id < model.offsets.length - 1) {
      return model.bytes.subarray(model.offsets[id]!, model.offsets[id + 1]!);
    }
    if (isSpecialId(id)) {
      let name = specialBytes.get(id);
      if (name === undefined) specialBytes.set(id, (name = utf8.encode(specialTokenName(id))));
      return name;
    }
    throw new RangeError(`not a token id: ${id}`);
  }

  return {
    encode(text: string): number[] {
      const out: number[] = [];
      for (const piece of pretokenize(toWellFormed(text))) {
        const whole = model.ignoreMerges ? model.byText.get(piece) : undefined;
        if (whole !== undefined) {
          out.push(whole);
          continue;
        }
        for (const id of encodePiece(piece)) out.push(id);
      }
      return out;
    },

    decode(ids: readonly number[]): string {
      const parts = ids.map(tokenBytesView);
      const joined = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
      let at = 0;
      for (const part of parts) {
        joined.set(part, at);
        at += part.length;
      }
      return decoder.decode(joined);
    },

    tokenBytes(id: number): Uint8Array {
      return tokenBytesView(id).slice();
    },
  };
}

function checkShape(json: object): TokenizerJson {
  const j = json as Partial<TokenizerJson>;
  const model = j.model;
  if (model === undefined || model.type !== 'BPE' || typeof model.vocab !== 'object' || !Array.isArray(model.merges)) {
    throw new TypeError('tokenizer.json: expected a BPE model with vocab and merges');
  }
  if (model.byte_fallback === true) throw new TypeError('tokenizer.json: byte_fallback is not supported');
  if (j.normalizer !== null && j.normalizer !== undefined) {
    throw new TypeError('tokenizer.json: a normalizer is not supported');
  }
  if (!JSON.stringify(j.pre_tokenizer ?? null).includes(JSON.stringify(LLAMA3_SPLIT_PATTERN))) {
    throw new TypeError("tokenizer.json: the pre-tokenizer is not Llama 3's split regex");
  }
  return j as TokenizerJson;
}

function buildModel(json: TokenizerJson): Model {
  const byChars = new Map<string, number>();
  const vocab = json.model.vocab;
  for (const chars in vocab) byChars.set(chars, vocab[chars]!);
  const count = byChars.size;
  const tokenBytes: Uint8Array[] = new Array(count);
  for (const [chars, id] of byChars) {
    if (!Number.isInteger(id) || id < 0 || id >= count || id >= FIRST_SPECIAL_ID || tokenBytes[id] !== undefined) {
      throw new TypeError(`tokenizer.json: vocab ids must be 0..${count - 1} without gaps (below ${FIRST_SPECIAL_ID})`);
    }
    tokenBytes[id] = charsToBytes(chars);
  }

  const offsets = new Uint32Array(count + 1);
  for (let id = 0; id < count; id++) offsets[id + 1] = offsets[id]! + tokenBytes[id]!.length;
  const bytes = new Uint8Array(offsets[count]!);
  for (let id = 0; id < count; id++) bytes.set(tokenBytes[id]!, offsets[id]!);

  const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const byText = new Map<string, number>();
  const byteIds = new Int32Array(256).fill(-1);
  for (let id = 0; id < count; id++) {
    const b = tokenBytes[id]!;
    if (b.length === 1) byteIds[b[0]!] = id;
    if (b.length === 1 && b[0]! >= 0x80) continue; // a lone high byte is never complete UTF-8
    try {
      byText.set(strict.decode(b), id);
    } catch {
      // Not complete UTF-8: reachable only through merges.
    }
  }
  if (byteIds.includes(-1)) throw new TypeError('tokenizer.json: every single byte must be a token');

  const merges = json.model.merges;
  const mergeRank = new MergeTable(merges.length);
  const mergeResult = new Int32Array(merges.length);
  for (let rank = 0; rank < merges.length; rank++) {
    const merge = merges[rank]!;
    const [left, right] = typeof merge === 'string' ? splitMerge(merge) : merge;
    const leftId = byChars.get(left);
    const rightId = byChars.get(right);
    const result = byChars.get(left + right);
    if (leftId === undefined || rightId === undefined || result === undefined) {
      throw new TypeError(`tokenizer.json: merge ${rank} joins tokens outside the vocab`);
    }
    mergeRank.add(leftId, rightId, rank);
    mergeResult[rank] = result;
  }

  return { bytes, offsets, byText, byteIds, mergeRank, mergeResult, ignoreMerges: json.model.ignore_merges === true };
}

function splitMerge(merge: string): [string, string] {
  const space = merge.indexOf(' ');
  if (space <= 0 || merge.indexOf(' ', space + 1) !== -1) throw new TypeError(`tokenizer.json: bad merge "${merge}"`);
  return [merge.slice(0, space), merge.slice(space + 1)];
}

/** Replaces lone surrogates with U+FFFD (as TextEncoder would), leaving well-formed text untouched. */
function toWellFormed(text: string): string {
  return /\p{Surrogate}/u.test(text) ? text.replace(/\p{Surrogate}/gu, '\uFFFD') : text;
}

/**
 * BPE over one piece's bytes: starts from single-byte tokens and repeatedly applies the lowest-ranked
 * merge among adjacent pairs, leftmost first. O(n log n): a linked list over positions and a binary
 * heap of (rank, position) with stale entries skipped.
 */
function mergeBytes(model: Pick<Model, 'byteIds' | 'mergeRank' | 'mergeResult'>, bytes: Uint8Array): number[] {
  const n = bytes.length;
  if (n === 0) return [];
  if (n === 1) return [model.byteIds[bytes[0]!]!];
  const ids = new Int32Array(n);
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  /** Rank of the pair starting at each live position, or -1 (none, or the position was merged away). */
  const pairRank = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    ids[i] = model.byteIds[bytes[i]!]!;
    next[i] = i + 1 < n ? i + 1 : -1;
    prev[i] = i - 1;
  }
  const heap: number[] = [];
  const rankAt = (pos: number): number => {
    const right = next[pos]!;
    if (right === -1) return -1;
    return model.mergeRank.rank(ids[pos]!, ids[right]!);
  };
  const refresh = (pos: number): void => {
    const rank = rankAt(pos);
    pairRank[pos] = rank;
    if (rank !== -1) heapPush(heap, rank * POS_RADIX + pos);
  };
  for (let i = 0; i < n - 1; i++) refresh(i);
  pairRank[n - 1] = -1;

  while (heap.length > 0) {
    const top = heapPop(heap);
    const pos = top % POS_RADIX;
    const rank = (top - pos) / POS_RADIX;
    if (pairRank[pos] !== rank) continue; // stale: the pair at pos changed since this entry
    const right = next[pos]!;
    ids[pos] = model.mergeResult[rank]!;
    next[pos] = next[right]!;
    if (next[right] !== -1) prev[next[right]!] = pos;
    pairRank[right] = -1;
    refresh(pos);
    if (prev[pos] !== -1) refresh(prev[pos]!);
  }

  const out: number[] = [];
  for (let pos = 0; pos !== -1; pos = next[pos]!) out.push(ids[pos]!);
  return out;
}

function heapPush(heap: number[], value: number): void {
  let i = heap.length;
  heap.push(value);
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent]! <= value) break;
    heap[i] = heap[parent]!;
    i = parent;
  }
  heap[i] = value;
}

function heapPop(heap: number[]): number {
  const top = heap[0]!;
  const last = heap.pop()!;
  if (heap.length > 0) {
    let i = 0;
    const n = heap.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && heap[r]! < heap[l]! ? r : l;
      if (heap[child]! >= last) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
  }
  return top;
}
