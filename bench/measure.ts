/**
 * Side-by-side timing on a shared, noisy machine: competitors run in interleaved rounds (AB, BA, AB…,
 * so neither always goes first), and only medians and ratios of medians are reported.
 */

/** The median (mean of the middle two for an even count); NaN for no samples. */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) return NaN;
  const s = [...samples].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** One sample of a competitor: how many milliseconds it took (it may time only part of its work). */
export type Sample = () => number | Promise<number>;

/**
 * Runs `rounds` rounds; each round takes one sample of every competitor, the order rotating by one
 * each round. Returns the samples per competitor, in round order.
 */
export async function interleave<K extends string>(rounds: number, competitors: Record<K, Sample>): Promise<Record<K, number[]>> {
  const names = Object.keys(competitors) as K[];
  const samples = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(r + k) % names.length]!;
      samples[name].push(await competitors[name]());
    }
  }
  return samples;
}

/** Milliseconds taken by `f`. */
export async function timed(f: () => unknown): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

/** Rounds a figure for the table and results.json: 3 significant digits, integers kept whole. */
export function round(x: number): number {
  if (!Number.isFinite(x) || Number.isInteger(x)) return x;
  const digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(x))));
  return Number(x.toFixed(Math.min(digits, 6)));
}
