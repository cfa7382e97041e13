/**
 * A lock granted in the order it was asked for. Releasing hands it straight to the next waiter, so a
 * holder that asks again right after releasing queues behind everyone already waiting: round robin
 * between generations that each take it for one backend step.
 */
export class FifoLock {
  private held = false;
  private readonly waiting: Array<() => void> = [];

  /** Runs `work` holding the lock. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}
