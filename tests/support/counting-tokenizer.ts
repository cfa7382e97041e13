/**
 * A tokenizer that records every text it is asked to encode (the engine bench, the session's tests):
 * it wraps the page's tokenizer, and what it wraps cannot tell the difference.
 */
import type { TextTokenizer } from '../../src/format/types';

export interface CountingTokenizer extends TextTokenizer {
  /** Every text encoded, in order. */
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
