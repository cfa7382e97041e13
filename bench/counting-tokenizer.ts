/**
 * A tokenizer that counts what it is asked to encode, for the engine section: the bench wraps the
 * page's tokenizer with it and the loop cannot tell the difference.
 */
import type { TextTokenizer } from '../src/format/types';

export interface CountingTokenizer extends TextTokenizer {
  /** Every text encoded while counting, in order. */
  readonly encoded: string[];
}

export function countingTokenizer(inner: TextTokenizer): CountingTokenizer {
  const counter: CountingTokenizer = {
    encoded: [],
    encode(text) {
      counter.encoded.push(text);
      return inner.encode(text);
    },
    decode: (ids) => inner.decode(ids),
    tokenBytes: (id) => inner.tokenBytes(id),
  };
  return counter;
}
