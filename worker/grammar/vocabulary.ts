/**
 * Llama 3.1's vocabulary as the constraint needs it: the encoded strings XGrammar builds its
 * TokenizerInfo from (tokenizer.json's byte-level strings by id, the added special tokens by their
 * text), and which ids open a custom call (`{`) or are only whitespace.
 */
import { bytesToChars, charsToBytes } from '../../src/format/tokenizer/byte-level';
import { FIRST_SPECIAL_ID, VOCAB_SIZE } from '../../src/format/special-tokens';

/** tokenizer.json, as far as the vocabulary goes. */
export interface TokenizerJson {
  model: { vocab: Record<string, number> };
  added_tokens: Array<{ id: number; content: string }>;
}

export type VocabularyLoader = () => Promise<string[]>;

export interface Vocabulary {
  /** By id, VOCAB_SIZE entries. */
  encoded: string[];
  /** Ids whose text starts with `{`. */
  braceStart: Uint8Array;
  /** Ids whose text is only whitespace (and not empty). */
  whitespace: Uint8Array;
  /** Ids spelling `text` (longest vocabulary entry first, left to right): forced text fed without sampling. */
  spell(text: string): number[];
}

/** The encoded vocabulary of a tokenizer.json; throws when an id is missing or out of range. */
export function encodedVocabulary(json: TokenizerJson): string[] {
  const encoded = new Array<string>(VOCAB_SIZE);
  for (const [text, id] of Object.entries(json.model.vocab)) encoded[id] = text;
  for (const { id, content } of json.added_tokens) encoded[id] = content;
  if (encoded.length !== VOCAB_SIZE) throw new RangeError(`the vocabulary has ids past ${VOCAB_SIZE - 1}`);
  for (let id = 0; id < VOCAB_SIZE; id++) if (encoded[id] === undefined) throw new RangeError(`the vocabulary has no token ${id}`);
  return encoded;
}

export function describeVocabulary(encoded: string[]): Vocabulary {
  const braceStart = new Uint8Array(VOCAB_SIZE);
  const whitespace = new Uint8Array(VOCAB_SIZE);
  for (let id = 0; id < FIRST_SPECIAL_ID; id++) {
    const bytes = charsToBytes(encoded[id]!);
    if (bytes[0] === 0x7b) braceStart[id] = 1;
    if (bytes.length > 0 && bytes.every((b) => b === 0x20 || b === 0x0a || b === 0x09 || b === 0x0d)) whitespace[id] = 1;
  }
  let byText: Map<string, number> | null = null;
  let longest = 0;
  const spell = (text: string): number[] => {
    if (!byText) {
      byText = new Map();
      for (let id = 0; id < FIRST_SPECIAL_ID; id++) {
        byText.set(encoded[id]!, id);
        longest = Math.max(longest, encoded[id]!.length);
      }
    }
    const chars = bytesToChars(new TextEncoder().encode(text));
    const ids: number[] = [];
    for (let at = 0; at < chars.length; ) {
      let length = Math.min(longest, chars.length - at);
      while (length > 1 && !byText.has(chars.slice(at, at + length))) length--;
      ids.push(byText.get(chars.slice(at, at + length))!);
      at += length;
    }
    return ids;
  };
  return { encoded, braceStart, whitespace, spell };
}
