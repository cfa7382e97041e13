/**
 * The token sampler: a pure function of (logits, params, rng, recent ids), as in llama2.c.
 * Order: logit bias → penalties → greedy (temperature 0) or temperature → top-k → min-p → top-p → draw.
 * It never sorts the vocabulary: candidates are found in linear passes and the nucleus by partial
 * selection (quickselect by probability mass), so a step costs O(vocab) expected.
 */
import type { SamplingParams } from '../src/engine/contract';

export type ResolvedSampling = Required<Omit<SamplingParams, 'seed' | 'logitBias'>> & {
  logitBias: Record<number, number>;
};

/** Llama 3.1 Instruct's generation_config.json: temperature 0.6, top_p 0.9; everything else off. */
export const LLAMA_31_SAMPLING: ResolvedSampling = {
  temperature: 0.6,
  topP: 0.9,
  topK: 0,
  minP: 0,
  repetitionPenalty: 1,
  frequencyPenalty: 0,
  presencePenalty: 0,
  penaltyWindow: 64,
  logitBias: {},
};

/** Fills defaults and rejects values that have no meaning (RangeError naming the field). */
export function resolveSampling(params: SamplingParams = {}): ResolvedSampling {
  const r: ResolvedSampling = { ...LLAMA_31_SAMPLING, ...stripUndefined(params), logitBias: params.logitBias ?? {} };
  const check = (ok: boolean, field: string, rule: string) => {
    if (!ok) throw new RangeError(`sampling.${field} ${rule}`);
  };
  check(Number.isFinite(r.temperature) && r.temperature >= 0, 'temperature', 'must be ≥ 0');
  check(r.topP > 0 && r.topP <= 1, 'topP', 'must be in (0, 1]');
  check(Number.isInteger(r.topK) && r.topK >= 0, 'topK', 'must be an integer ≥ 0');
  check(r.minP >= 0 && r.minP < 1, 'minP', 'must be in [0, 1)');
  check(Number.isFinite(r.repetitionPenalty) && r.repetitionPenalty > 0, 'repetitionPenalty', 'must be > 0');
  check(Number.isFinite(r.frequencyPenalty), 'frequencyPenalty', 'must be finite');
  check(Number.isFinite(r.presencePenalty), 'presencePenalty', 'must be finite');
  check(Number.isInteger(r.penaltyWindow) && r.penaltyWindow >= 0, 'penaltyWindow', 'must be an integer ≥ 0');
  return r;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([k, v]) => v !== undefined && k !== 'seed')) as Partial<T>;
}

/** Scaled logits this far below the top (exp(-30) ≈ 1e-13 relative probability) are treated as zero. */
const NEGLIGIBLE = 30;
/** Below this many candidates the nucleus is found by sorting them (cheaper than partitioning). */
const SMALL = 48;

export type Sampler = (logits: Float32Array, params: ResolvedSampling, rng: () => number, recent: readonly number[]) => number;

/**
 * A sampler with its own scratch buffers (allocated once, vocabulary-sized). It may modify `logits`
 * in place (bias and penalties). Throws when every token is banned.
 */
export function createSampler(vocabSize: number): Sampler {
  const idx = new Int32Array(vocabSize);
  const w = new Float64Array(vocabSize);

  return (logits, params, rng, recent) => {
    applyBias(logits, params.logitBias);
    applyPenalties(logits, params, recent);
    if (params.temperature <= 0) return argmax(logits);

    let max = -Infinity;
    for (let i = 0; i < logits.length; i++) if (logits[i]! > max) max = logits[i]!;
    if (max === -Infinity) throw new RangeError('every token is banned: nothing to sample');

    // Candidates: indices whose probability is not negligible, with weights exp((l - max) / T) ≤ 1.
    const invT = 1 / params.temperature;
    const floor = max - NEGLIGIBLE * params.temperature;
    let n = 0;
    for (let i = 0; i < logits.length; i++) {
      const l = logits[i]!;
      if (l > floor) {
        idx[n] = i;
        w[n] = Math.exp((l - max) * invT);
        n++;
      }
    }
    if (params.topK > 0 && params.topK < n) n = selectLargest(idx, w, n, params.topK);
    if (params.minP > 0) n = keepAtLeast(idx, w, n, params.minP); // the top weight is exactly 1
    if (params.topP < 1) n = nucleus(idx, w, n, params.topP);

    let total = 0;
    for (let i = 0; i < n; i++) total += w[i]!;
    let r = rng() * total;
    for (let i = 0; i < n; i++) {
      r -= w[i]!;
      if (r < 0) return idx[i]!;
    }
    return idx[n - 1]!;
  };
}

/** Index of the largest logit; the lowest index wins a tie; NaN never wins. */
export function argmax(logits: Float32Array): number {
  let best = 0;
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) {
    if (logits[i]! > max) {
      max = logits[i]!;
      best = i;
    }
  }
  if (max === -Infinity) throw new RangeError('every token is banned: nothing to sample');
  return best;
}

function applyBias(logits: Float32Array, bias: Record<number, number>): void {
  for (const key in bias) {
    const id = Number(key);
    if (id >= 0 && id < logits.length) logits[id] = logits[id]! + bias[key]!;
  }
}

/** Repetition (HF style), frequency and presence penalties over the last `penaltyWindow` ids. */
export function applyPenalties(logits: Float32Array, p: ResolvedSampling, recent: readonly number[]): void {
  if (p.penaltyWindow === 0 || (p.repetitionPenalty === 1 && p.frequencyPenalty === 0 && p.presencePenalty === 0)) return;
  const counts = new Map<number, number>();
  for (let i = Math.max(0, recent.length - p.penaltyWindow); i < recent.length; i++) {
    const id = recent[i]!;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  for (const [id, count] of counts) {
    if (id < 0 || id >= logits.length) continue;
    let l = logits[id]!;
    if (p.repetitionPenalty !== 1) l = l > 0 ? l / p.repetitionPenalty : l * p.repetitionPenalty;
    l -= count * p.frequencyPenalty + p.presencePenalty;
    logits[id] = l;
  }
}

function swap(idx: Int32Array, w: Float64Array, a: number, b: number): void {
  const i = idx[a]!;
  idx[a] = idx[b]!;
  idx[b] = i;
  const v = w[a]!;
  w[a] = w[b]!;
  w[b] = v;
}

/**
 * Three-way partition of [lo, hi) around `pivot`: larger weights first, then equal, then smaller.
 * Returns [end of larger, end of equal].
 */
function partition(idx: Int32Array, w: Float64Array, lo: number, hi: number, pivot: number): [number, number] {
  let lt = lo;
  let i = lo;
  let gt = hi;
  while (i < gt) {
    const v = w[i]!;
    if (v > pivot) swap(idx, w, lt++, i++);
    else if (v < pivot) swap(idx, w, i, --gt);
    else i++;
  }
  return [lt, gt];
}

function medianOfThree(w: Float64Array, lo: number, hi: number): number {
  const a = w[lo]!;
  const b = w[(lo + hi) >>> 1]!;
  const c = w[hi - 1]!;
  return Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
}

/** Moves the k largest weights to [0, k) (quickselect, expected linear). Returns k. */
function selectLargest(idx: Int32Array, w: Float64Array, n: number, k: number): number {
  let lo = 0;
  let hi = n;
  while (hi - lo > 1) {
    const [gtEnd, eqEnd] = partition(idx, w, lo, hi, medianOfThree(w, lo, hi));
    if (k <= gtEnd) hi = gtEnd;
    else if (k <= eqEnd) break;
    else lo = eqEnd;
  }
  return k;
}

/** Keeps candidates whose weight is at least `threshold` (order not kept). Returns the new count. */
function keepAtLeast(idx: Int32Array, w: Float64Array, n: number, threshold: number): number {
  let m = 0;
  for (let i = 0; i < n; i++) {
    if (w[i]! >= threshold) {
      idx[m] = idx[i]!;
      w[m] = w[i]!;
      m++;
    }
  }
  return m;
}

/**
 * The nucleus: moves to [0, m) the smallest set of the most likely candidates whose mass reaches
 * topP of the total, and returns m. Partial selection: each round partitions the unresolved range
 * around a pivot and keeps only the side where the threshold lies.
 */
function nucleus(idx: Int32Array, w: Float64Array, n: number, topP: number): number {
  let total = 0;
  for (let i = 0; i < n; i++) total += w[i]!;
  // A weight below (1 - topP) / (n - 1) of the total can never be needed (llama2.c's cut).
  if (n > SMALL) n = keepAtLeast(idx, w, n, ((1 - topP) * total) / (n - 1));
  let need = topP * total;
  let lo = 0; // [0, lo) is in the nucleus
  let hi = n; // [lo, hi) is unresolved
  while (hi - lo > SMALL) {
    const [gtEnd, eqEnd] = partition(idx, w, lo, hi, medianOfThree(w, lo, hi));
    let upper = 0;
    for (let i = lo; i < gtEnd; i++) upper += w[i]!;
    if (upper >= need) {
      hi = gtEnd;
      continue;
    }
    need -= upper;
    for (let i = gtEnd; i < eqEnd; i++) {
      need -= w[i]!;
      if (need <= 0) return i + 1;
    }
    lo = eqEnd;
  }
  sortDescending(idx, w, lo, hi);
  for (let i = lo; i < hi; i++) {
    need -= w[i]!;
    if (need <= 0) return i + 1;
  }
  return hi; // rounding left a sliver: keep everything that was considered
}

/** Insertion sort of [lo, hi) by weight, descending, ties by id ascending (small ranges only). */
function sortDescending(idx: Int32Array, w: Float64Array, lo: number, hi: number): void {
  for (let i = lo + 1; i < hi; i++) {
    const id = idx[i]!;
    const v = w[i]!;
    let j = i - 1;
    while (j >= lo && (w[j]! < v || (w[j] === v && idx[j]! > id))) {
      idx[j + 1] = idx[j]!;
      w[j + 1] = w[j]!;
      j--;
    }
    idx[j + 1] = id;
    w[j + 1] = v;
  }
}
