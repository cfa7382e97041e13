import type { TokenBatch } from '../src/engine/contract';
import type { StreamDecoder } from './stream-decoder';

/**
 * Groups streamed tokens into batches (every `maxTokens` tokens or `maxDelayMs`, whichever comes
 * first) so a fast decode does not send one message per token across the worker boundary.
 */
export class TokenBatcher {
  private tokens: number[] = [];
  private text = '';
  private since = 0;

  constructor(
    private readonly decoder: StreamDecoder,
    private readonly send: ((batch: TokenBatch) => void) | undefined,
    private readonly maxTokens = 8,
    private readonly maxDelayMs = 16,
  ) {}

  push(id: number): void {
    if (this.tokens.length === 0) this.since = performance.now();
    this.tokens.push(id);
    this.text += this.decoder.push([id]);
    if (this.tokens.length >= this.maxTokens || performance.now() - this.since >= this.maxDelayMs) this.flush();
  }

  /** Sends what is pending; `final` also releases bytes held back for an incomplete character. */
  flush(final = false): void {
    if (final) this.text += this.decoder.flush();
    if (this.tokens.length === 0 && this.text === '') return;
    const batch = { tokens: this.tokens, text: this.text };
    this.tokens = [];
    this.text = '';
    this.send?.(batch);
  }
}
