/**
 * Bookkeeping of what a logits backend's KV cache holds: exactly the ids fed so far, in order.
 * (The last sampled token — often a terminator — is not in it: it was never fed; a next prompt that
 * continues the transcript starts its suffix with it.) Compares ids, never text.
 */
export class PrefixCache {
  private fed: number[] = [];
  /** The cache salt of the requests that filled it: another salt shares nothing. */
  private salt = '';

  /** Ids in the KV cache. */
  get length(): number {
    return this.fed.length;
  }

  /**
   * How to serve a prompt: keep the longest common prefix of the cache and the prompt (`keep` ids),
   * roll the rest of the cache back, and prefill `suffix`. At least one id is always prefilled (the
   * logits after the last prompt id are needed), so a prompt equal to — or a prefix of — the cache
   * keeps one id fewer than it shares.
   */
  plan(tokens: readonly number[], salt = ''): { keep: number; suffix: number[] } {
    const limit = salt === this.salt ? Math.min(this.fed.length, tokens.length - 1) : 0;
    let keep = 0;
    while (keep < limit && this.fed[keep] === tokens[keep]) keep++;
    return { keep, suffix: tokens.slice(keep) };
  }

  /** How many ids the cache and `tokens` have in common from the start (none across salts). */
  shared(tokens: readonly number[], salt = ''): number {
    if (salt !== this.salt) return 0;
    const limit = Math.min(this.fed.length, tokens.length);
    let n = 0;
    while (n < limit && this.fed[n] === tokens[n]) n++;
    return n;
  }

  /** From now on the cache holds what requests of `salt` fed. */
  useSalt(salt: string): void {
    this.salt = salt;
  }

  /** Records ids just fed to the backend. */
  append(ids: readonly number[]): void {
    for (const id of ids) this.fed.push(id);
  }

  /** The backend dropped every position from `n` on. */
  truncate(n: number): void {
    this.fed.length = Math.min(n, this.fed.length);
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
