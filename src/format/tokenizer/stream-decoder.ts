import type { TextTokenizer } from '../types';

/**
 * Turns ids into text as they stream: bytes of a character split across tokens are held back
 * until the character is complete, so every emitted piece is valid text and the pieces
 * concatenate to the decode of all ids.
 */
export class StreamDecoder {
  private readonly utf8 = new TextDecoder('utf-8');

  constructor(private readonly tokenizer: TextTokenizer) {}

  /** The text completed by these ids. */
  push(ids: readonly number[]): string {
    let out = '';
    for (const id of ids) out += this.utf8.decode(this.tokenizer.tokenBytes(id), { stream: true });
    return out;
  }

  /** Whatever is still held back (an incomplete character becomes U+FFFD). */
  flush(): string {
    return this.utf8.decode();
  }
}
