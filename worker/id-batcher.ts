/**
 * Groups streamed ids into batches (every `maxIds` ids or `maxDelayMs`, whichever comes first) so a
 * fast decode does not send one message per token across the worker boundary. Batches arrive in
 * order and concatenate to exactly the ids pushed. A consumer whose callback throws gets nothing more:
 * its error is kept (`failure`), and the generation stops at the next token as it would on an abort.
 */
export class IdBatcher {
  private ids: number[] = [];
  private since = 0;
  /** What the consumer's callback threw, if it did. */
  failure: { error: unknown } | null = null;

  constructor(
    private readonly send: ((ids: number[]) => void) | undefined,
    private readonly maxIds = 8,
    private readonly maxDelayMs = 16,
  ) {}

  push(id: number): void {
    if (!this.send) return;
    if (this.ids.length === 0) this.since = performance.now();
    this.ids.push(id);
    if (this.ids.length >= this.maxIds || performance.now() - this.since >= this.maxDelayMs) this.flush();
  }

  /** Sends what is pending. */
  flush(): void {
    if (this.ids.length === 0 || this.failure) return;
    const batch = this.ids;
    this.ids = [];
    try {
      this.send?.(batch);
    } catch (error) {
      this.failure = { error };
    }
  }
}
