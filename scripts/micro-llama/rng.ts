import { SeededRandom } from '../setup/seeded-random';

/** Seeded choices for the corpus: every draw goes through `next()`, so a seed fixes the whole corpus. */
export class Rng {
  private readonly source: SeededRandom;

  constructor(seed: number) {
    this.source = new SeededRandom(seed);
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.source.next();
  }

  /** Integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** Integer in [lo, hi], log-uniform (small and large magnitudes equally often). */
  logInt(lo: number, hi: number): number {
    return Math.min(hi, Math.floor(Math.exp(Math.log(lo) + this.next() * (Math.log(hi + 1) - Math.log(lo)))));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** A key of `weights` with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as Array<[K, number]>;
    const total = entries.reduce((s, [, w]) => s + w, 0);
    // Invariant: a key of weight 0 is never drawn, so all-zero weights have nothing to draw.
    if (!(total > 0)) throw new Error('Rng.weighted: every weight is 0');
    let r = this.next() * total;
    for (const [k, w] of entries) {
      r -= w;
      if (r < 0) return k;
    }
    // Only rounding reaches here (r left just above 0): the last key that has a weight.
    return entries.filter(([, w]) => w > 0).at(-1)![0];
  }

  /** `n` distinct items (n ≤ items.length), in random order. */
  sample<T>(items: readonly T[], n: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    for (let i = 0; i < n && pool.length > 0; i++) out.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0]!);
    return out;
  }
}
