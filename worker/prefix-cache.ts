/**
 * Bookkeeping of what the backend's KV cache holds: exactly the ids fed so far, in order.
 * (The last sampled token — often a terminator — is not in it: it was never fed; a next prompt
 * that continues the transcript starts its suffix with it.) Compares ids, never text.
 */
export class PrefixCache {
  private fed: number[] = [];

  /** Ids in the KV cache. */
  get length(): number {
    return this.fed.length;
  }

  /**
   * How to serve a prompt: `reuse` ids stay in the cache and `suffix` is prefilled. A prompt that
   * strictly extends the cache reuses all of it; anything else (divergence, same length, shorter)
   * resets: the backend has no rollback, and at least one new id must be fed to get logits.
   */
  plan(tokens: readonly number[]): { reuse: number; suffix: number[] } {
    const n = this.fed.length;
    if (n > 0 && tokens.length > n && this.fed.every((id, i) => tokens[i] === id)) {
      return { reuse: n, suffix: tokens.slice(n) };
    }
    return { reuse: 0, suffix: tokens.slice() };
  }

  /** Records ids just fed to the backend. */
  append(ids: readonly number[]): void {
    for (const id of ids) this.fed.push(id);
  }

  /** The backend's cache was cleared. */
  clear(): void {
    this.fed = [];
  }

  /** A copy of the cached ids (for tests and the inspector). */
  ids(): number[] {
    return this.fed.slice();
  }
}
