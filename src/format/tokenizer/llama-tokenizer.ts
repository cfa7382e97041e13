/**
 * The Llama 3.1 tokenizer: Hugging Face's `@huggingface/tokenizers` over our generated tokenizer.json,
 * adapted so that content is always plain text. Browser-safe (no Node imports): the page fetches
 * tokenizer.json and calls `createTokenizer`; Node reads it from disk (load-node.ts).
 *
 * Invariants:
 * - `encode` treats all text as content: ids are always < FIRST_SPECIAL_ID (128000), whatever the text
 *   contains (`<|eot_id|>` becomes ordinary tokens). The library is built from tokenizer.json with its
 *   added tokens removed, so it has no special token to recognise; special ids come only from the renderer.
 * - `encode` gives the ids of Meta's encoder (tiktoken): the one place the library differs — its
 *   `(?i:'s|…)` folds ASCII only, Rust's regex also folds `ſ` (U+017F) to `s` — is closed by spelling the
 *   contraction group out with Unicode simple case folding before the library compiles the pattern.
 * - Lone surrogates are encoded as U+FFFD (what UTF-8 can represent).
 * - The same text always gives the same ids, and each call its own array. Nothing is remembered between
 *   calls: a conversation's messages are encoded once, by the transcript that holds their ids.
 * - `decode` joins the tokens' bytes and decodes them as UTF-8 (incomplete bytes → U+FFFD); special ids
 *   decode to their 3.1 names. (Not the library's decode: Llama 3's config cleans up tokenization spaces,
 *   which would change the text; `decode(encode(x)) === x` for well-formed text.)
 */
import { Tokenizer } from '@huggingface/tokenizers';
import { FIRST_SPECIAL_ID, isSpecialId, specialTokenName } from '../special-tokens';
import type { TextTokenizer } from '../types';
import { charsToBytes } from './byte-level';

/** Llama 3's pre-tokenizer regex, as tokenizer.json writes it. */
export const LLAMA3_SPLIT_PATTERN =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/** The case-insensitive contraction group with Rust's (Unicode simple) case folding spelled out. */
const CONTRACTIONS_FOLDED = "'(?:[sSſ]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])";
const CONTRACTIONS_INSENSITIVE = "(?i:'s|'t|'re|'ve|'m|'ll|'d)";

interface TokenizerJson {
  model: { type?: string; vocab?: Record<string, number>; merges?: Array<string | [string, string]>; byte_fallback?: boolean };
  normalizer?: unknown;
  pre_tokenizer?: unknown;
  added_tokens?: unknown[];
}

/**
 * A `TextTokenizer` over a Llama 3 tokenizer.json (parsed). Throws a TypeError if the file is not Llama
 * 3's kind (byte-level BPE with the Llama 3 split regex, no normalizer, ordinary ids 0..n-1 below
 * 128000). The file's added tokens are not read: special ids are named by special-tokens.ts, so a
 * Llama 3.0 file decodes them with 3.1 names too.
 */
export function createTokenizer(tokenizerJson: object): TextTokenizer {
  const json = checkShape(tokenizerJson);
  const library = new Tokenizer(contentOnly(json), {});
  const bytes = vocabBytes(json.model.vocab!);
  const specialBytes = new Map<number, Uint8Array>();
  const utf8 = new TextEncoder();
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

  const tokenBytesView = (id: number): Uint8Array => {
    if (Number.isInteger(id) && id >= 0 && id < bytes.length) return bytes[id]!;
    if (Number.isInteger(id) && isSpecialId(id)) {
      let name = specialBytes.get(id);
      if (name === undefined) specialBytes.set(id, (name = utf8.encode(specialTokenName(id))));
      return name;
    }
    throw new RangeError(`not a token id: ${id}`);
  };

  return {
    encode(text: string): number[] {
      if (text === '') return [];
      return library.encode(toWellFormed(text), { add_special_tokens: false }).ids.slice();
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

/** The file as the library should see it: no added tokens, no post-processor, the regex folded as Rust folds it. */
function contentOnly(json: TokenizerJson): object {
  const pre = JSON.stringify(json.pre_tokenizer).replace(JSON.stringify(CONTRACTIONS_INSENSITIVE).slice(1, -1), JSON.stringify(CONTRACTIONS_FOLDED).slice(1, -1));
  return { ...json, added_tokens: [], post_processor: null, pre_tokenizer: JSON.parse(pre) as unknown };
}

function checkShape(json: object): TokenizerJson {
  const j = json as Partial<TokenizerJson>;
  const model = j.model;
  if (model === undefined || model.type !== 'BPE' || typeof model.vocab !== 'object' || !Array.isArray(model.merges)) {
    throw new TypeError('tokenizer.json: expected a BPE model with vocab and merges');
  }
  if (model.byte_fallback === true) throw new TypeError('tokenizer.json: byte_fallback is not supported');
  if (j.normalizer !== null && j.normalizer !== undefined) throw new TypeError('tokenizer.json: a normalizer is not supported');
  if (!JSON.stringify(j.pre_tokenizer ?? null).includes(JSON.stringify(LLAMA3_SPLIT_PATTERN))) {
    throw new TypeError("tokenizer.json: the pre-tokenizer is not Llama 3's split regex");
  }
  checkMerges(model.vocab, model.merges as Array<string | [string, string]>);
  return j as TokenizerJson;
}

/** Every merge joins two tokens of the vocabulary into a third (the library would silently skip others). */
function checkMerges(vocab: Record<string, number>, merges: ReadonlyArray<string | [string, string]>): void {
  merges.forEach((merge, rank) => {
    const [left, right] = typeof merge === 'string' ? merge.split(' ') : merge;
    const ok = typeof merge === 'string' ? merge.indexOf(' ') > 0 && merge.indexOf(' ') === merge.lastIndexOf(' ') : merge.length === 2;
    if (!ok || left === undefined || right === undefined || ![left, right, left + right].every((t) => Object.hasOwn(vocab, t))) {
      throw new TypeError(`tokenizer.json: merge ${rank} joins tokens outside the vocab`);
    }
  });
}

/** id → the bytes it stands for; ids must be 0..n-1 without gaps, below the special range. */
function vocabBytes(vocab: Record<string, number>): Uint8Array[] {
  const entries = Object.entries(vocab);
  const out: Uint8Array[] = new Array(entries.length);
  for (const [chars, id] of entries) {
    if (!Number.isInteger(id) || id < 0 || id >= entries.length || id >= FIRST_SPECIAL_ID || out[id] !== undefined) {
      throw new TypeError(`tokenizer.json: vocab ids must be 0..${entries.length - 1} without gaps (below ${FIRST_SPECIAL_ID})`);
    }
    out[id] = charsToBytes(chars);
  }
  return out;
}

/** Replaces lone surrogates with U+FFFD (as TextEncoder would), leaving well-formed text untouched. */
function toWellFormed(text: string): string {
  return /\p{Surrogate}/u.test(text) ? text.replace(/\p{Surrogate}/gu, '\uFFFD') : text;
}
