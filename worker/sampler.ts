/**
 * The token sampler: a pure function of (logits, params, rng, recent ids), as in llama2.c.
 * Order: logit bias → penalties → greedy (temperature 0) or temperature → top-k → min-p → top-p → draw.
 *
 * Weights are w = exp((l - max) / T) ≤ 1, from a table and a short polynomial (relative error below
 * 1e-11); a weight below exp(-NEGLIGIBLE) counts as zero. Nothing sorts the vocabulary, and on a
 * language model's logits most of it is never exponentiated: one pass finds the max and splits the
 * vocabulary into the head (w > exp(-HEAD): gathered, weighed) and the bulk, whose total mass is only
 * bounded (within 1.6%, from a table). The bulk cannot hold a top-k or min-p survivor, and when the
 * nucleus is the same for every total within the bounds it lies in the head: the result is then the
 * one of weighing everything. Otherwise (a flat distribution, top-p 1, a top-k larger than the head)
 * every weight is computed. A large nucleus is found by bucketing candidates by weight, then partial
 * selection inside the boundary bucket. A step costs O(vocab), with no data-dependent sort.
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
/** Table steps per unit of scaled logit: weights are bucketed (and bounded) at this resolution. */
const STEPS = 64;
/** y = (max - l) / T × STEPS: a token has weight iff y < LIMIT. */
const LIMIT = NEGLIGIBLE * STEPS;
/** The head: scaled logits within this of the top (weights above exp(-12) ≈ 6e-6). */
const HEAD = 12;
const HEAD_Y = HEAD * STEPS;
/** exp(-b / STEPS) for bucket b. */
const EXP_STEP = Float64Array.from({ length: LIMIT }, (_, b) => Math.exp(-b / STEPS));
/** A lower bound of the weight of a bulk token by j = floor(LIMIT - EPSILON - y) (0: no lower bound). */
const BULK_LOW = Float64Array.from({ length: LIMIT + 1 }, (_, j) => (j === 0 ? 0 : Math.exp((j - LIMIT) / STEPS)));
/** A bulk token's weight is below BULK_LOW[j] × UP (for j = 0: below exp(-NEGLIGIBLE) × UP), up to EPSILON. */
const UP = Math.exp(1 / STEPS);
/** Keeps floor() of a rounded t on the low side, so BULK_LOW[j] stays a lower bound. */
const EPSILON = 1e-6;
/**
 * Relative slack of the bounds: rounding, EPSILON (1.6e-8), the polynomial's error (1e-11), and the
 * rescaled bounds of ids that ended below the negligible floor (at most vocab × exp(-30) ≈ 1.2e-8 of
 * the top weight, itself part of the total).
 */
const SLACK = 1e-7;
/** Below this many candidates the nucleus is found by partial selection alone (no buckets). */
const BUCKET_MIN = 2048;
/** Below this many candidates in a range, it is sorted (cheaper than partitioning). */
const SMALL = 48;

export type Sampler = (logits: Float32Array, params: ResolvedSampling, rng: () => number, recent: readonly number[]) => number;

/** Scratch space of one sampler: candidate ids, their weights and weight buckets, vocabulary-sized. */
interface Scratch {
  idx: Int32Array;
  w: Float64Array;
  bucket: Int16Array;
  /** Bucket masses (LIMIT) and the boundary bucket's members (vocabulary-sized). */
  mass: Float64Array;
  spillIdx: Int32Array;
  spillW: Float64Array;
}

/**
 * A sampler with its own scratch buffers (allocated once, vocabulary-sized). It may modify `logits`
 * in place (bias and penalties). Throws when every token is banned; a +Infinity logit wins outright.
 */
export function createSampler(vocabSize: number): Sampler {
  const s: Scratch = {
    idx: new Int32Array(vocabSize),
    w: new Float64Array(vocabSize),
    bucket: new Int16Array(vocabSize),
    mass: new Float64Array(LIMIT),
    spillIdx: new Int32Array(vocabSize),
    spillW: new Float64Array(vocabSize),
  };

  const sample: Sampler = (logits, params, rng, recent) => {
    applyBias(logits, params.logitBias);
    applyPenalties(logits, params, recent);
    if (params.temperature <= 0) return argmax(logits);

    const scale = STEPS / params.temperature;
    const split = splitHead(s, logits, scale);
    if (split.max === -Infinity) throw new RangeError('every token is banned: nothing to sample');
    if (split.max === Infinity) return argmax(logits);
    const n = fromHead(s, logits, split, scale, params) ?? fromAll(s, logits, split.max, scale, params);
    return draw(s.idx, s.w, n, rng);
  };
  warmUp(sample, vocabSize);
  return sample;
}

/**
 * The largest logits of a step, as a runtime that keeps the full vector on its side hands them over:
 * `ids[i]` has `logits[i]`; the `outside` ids not listed have logits at most `outsideMax`.
 */
export interface TopLogits {
  ids: ArrayLike<number>;
  logits: ArrayLike<number>;
  outsideMax: number;
  outside: number;
}

/**
 * Samples from the largest logits alone: the token the full sampler would draw from the same
 * distribution, or null when the listed logits cannot decide it (the caller then hands over the full
 * vector). `params.logitBias` may only lower logits (an unlisted id raised could overtake the list)
 * and penalties must be off; callers check with `topSamplingApplies`.
 *
 * Decided when everything unlisted lies below the head (weights under exp(-HEAD)): then the head is
 * the full sampler's head — the same ids, met in the same (ascending id) order, the same weights —
 * and the bounds of the rest's mass are the listed bulk plus `outside` × the largest unlisted weight.
 * Where the full sampler decides from its head too, the draw is the same token for the same rng.
 */
export type TopSampler = (top: TopLogits, params: ResolvedSampling, rng: () => number) => number | null;

/** Whether a request's settings let `TopSampler` decide (no penalties, no raised logits). */
export function topSamplingApplies(p: ResolvedSampling): boolean {
  const penalised = p.penaltyWindow > 0 && (p.repetitionPenalty !== 1 || p.frequencyPenalty !== 0 || p.presencePenalty !== 0);
  return !penalised && Object.values(p.logitBias).every((b) => b <= 0);
}

export function createTopSampler(): TopSampler {
  let s = topScratch(0);
  const order: number[] = [];
  let value = new Float64Array(0);

  return (top, params, rng) => {
    const k = top.ids.length;
    if (k > value.length) {
      s = topScratch(k);
      value = new Float64Array(k);
    }
    order.length = 0;
    let max = -Infinity;
    let best = -1;
    for (let j = 0; j < k; j++) {
      const id = top.ids[j]!;
      const bias = params.logitBias[id];
      // Rounded to float32 as the full sampler's in-place bias is.
      const v = bias === undefined ? top.logits[j]! : Math.fround(top.logits[j]! + bias);
      value[j] = v;
      order.push(j);
      if (v > max || (v === max && id < top.ids[best]!)) {
        max = v;
        best = j;
      }
    }
    // An unlisted id could tie the top (and win on a lower id) or weigh in: not decided here.
    if (!(max > top.outsideMax) || best < 0) return null;
    if (params.temperature <= 0 || max === Infinity) return top.ids[best]!;

    const scale = STEPS / params.temperature;
    const outsideY = (max - top.outsideMax) * scale;
    if (!(outsideY >= HEAD_Y)) return null;
    order.sort((a, b) => top.ids[a]! - top.ids[b]!);
    const { idx, w, bucket } = s;
    let n = 0;
    let head = 0;
    let bulkLow = 0;
    for (const j of order) {
      const y = (max - value[j]!) * scale;
      const b = y | 0;
      if (y < HEAD_Y) {
        idx[n] = top.ids[j]!;
        bucket[n] = b;
        head += w[n] = weightAt(y, b);
        n++;
      } else if (y < LIMIT) {
        bulkLow += weightAt(y, b);
      }
    }
    const outsideWeight = Math.exp(-outsideY / STEPS);
    const bulkHigh = (bulkLow + k * Math.exp(-NEGLIGIBLE) + top.outside * outsideWeight) * UP * (1 + SLACK);
    const m = decideFromHead(s, n, head, bulkLow, bulkHigh, params);
    return m === null ? null : draw(idx, w, m, rng);
  };
}

function topScratch(capacity: number): Scratch {
  return {
    idx: new Int32Array(capacity),
    w: new Float64Array(capacity),
    bucket: new Int16Array(capacity),
    mass: new Float64Array(LIMIT),
    spillIdx: new Int32Array(capacity),
    spillW: new Float64Array(capacity),
  };
}

/**
 * Runs every path twice on small vectors (well under a millisecond). Without it, the first real call
 * (128k iterations) is optimized on-stack in mid-loop, before the code after its loops has ever run;
 * V8 then bails out of that code at the end of every later call, and in about half the processes
 * measured the sampler stayed 2.5× slower for good.
 */
function warmUp(sample: Sampler, vocabSize: number): void {
  const n = Math.min(2 * BUCKET_MIN, vocabSize);
  const peaked = Float32Array.from({ length: n }, (_, i) => (i % 97 === 0 ? 12 - (i % 7) : Math.sin(i)));
  const flat = Float32Array.from({ length: n }, (_, i) => Math.sin(i) * 0.1);
  const odd = Float32Array.from({ length: n }, (_, i) => [NaN, -Infinity, -1e30, Math.cos(i)][i % 4]!);
  const settings: Array<Partial<ResolvedSampling>> = [{}, { topP: 1 }, { topK: 40 }, { minP: 0.05 }];
  for (let round = 0; round < 2; round++) {
    for (const logits of [peaked, flat, odd]) {
      for (const p of settings) sample(logits.slice(), { ...LLAMA_31_SAMPLING, ...p }, () => 0.5, []);
    }
  }
}

/**
 * The max logit; the head's ids in idx[0, n) (a superset: ids gathered under a lower running max may
 * be below the final floor); a lower bound of the bulk's mass.
 */
interface Split {
  max: number;
  n: number;
  bulkLow: number;
}

/**
 * One pass: the running max, the ids above the running head floor, and for every other id a lower
 * bound of its weight relative to the running max (rescaled whenever the max rises, which keeps it
 * a lower bound). NaN and -Infinity weigh 0. Branches are predictable (a head id and a new max are
 * rare; a logit a billion steps down is rare, or everywhere when a processor bans all but a few): the
 * bulk's bound is branch-free, and the pass costs about two max passes, not an exp per token.
 */
function splitHead(s: Scratch, logits: Float32Array, scale: number): Split {
  const { idx } = s;
  const headSpan = HEAD_Y / scale;
  let max = -Infinity;
  let floor = -Infinity;
  let offset = -Infinity; // t = v * scale + offset = LIMIT - EPSILON - y
  let n = 0;
  let low = 0;
  const len = logits.length;
  for (let i = 0; i < len; i++) {
    const v = logits[i]!;
    if (v > floor) {
      idx[n++] = i;
      if (v > max) {
        low *= Math.exp(((max - v) * scale) / STEPS);
        max = v;
        floor = max - headSpan;
        offset = LIMIT - EPSILON - max * scale;
      }
    } else {
      const t = v * scale + offset;
      if (t > -1e9) {
        const j = t | 0;
        low += BULK_LOW[j & ~(j >> 31)]!; // j < 0: a weight below exp(-NEGLIGIBLE), counted as 0
      } // else -Infinity, NaN or far below: weight 0 (and t | 0 would take V8's slow path, or wrap)
    }
  }
  return { max, n, bulkLow: low };
}

/**
 * The fast path: candidates from the head only, when that provably gives the same set as weighing
 * everything. Returns how many candidates [0, n) to draw from, or null when the bulk could matter.
 */
function fromHead(s: Scratch, logits: Float32Array, split: Split, scale: number, p: ResolvedSampling): number | null {
  const { idx, w, bucket } = s;
  const { max } = split;
  let bulkLow = split.bulkLow;
  let n = 0;
  let head = 0;
  for (let k = 0; k < split.n; k++) {
    const i = idx[k]!;
    const y = (max - logits[i]!) * scale;
    const b = y | 0;
    if (y < HEAD_Y) {
      idx[n] = i;
      bucket[n] = b;
      head += w[n] = weightAt(y, b);
      n++;
    } else if (y < LIMIT) {
      bulkLow += weightAt(y, b); // gathered under a lower running max: bulk after all, weighed exactly
    }
  }

  const bulkHigh = (bulkLow + (logits.length - n) * Math.exp(-NEGLIGIBLE)) * UP * (1 + SLACK);
  return decideFromHead(s, n, head, bulkLow, bulkHigh, p);
}

/**
 * Given the head's candidates in [0, n) (weights above exp(-HEAD), total `head`) and bounds of the
 * mass of everything else (every such weight at most exp(-HEAD)), how many candidates to draw from,
 * or null when the bounds leave the answer open.
 */
function decideFromHead(s: Scratch, n: number, head: number, bulkLow: number, bulkHigh: number, p: ResolvedSampling): number | null {
  const { w } = s;
  if (p.topK > 0) {
    if (p.topK > n) return null;
    n = selectLargest(s, n, p.topK);
    return filtered(s, n, p);
  }
  if (p.minP > 0) return p.minP > Math.exp(-HEAD) ? filtered(s, n, p) : null;
  if (p.topP >= 1) return null;

  const needLow = p.topP * (head + bulkLow * (1 - SLACK)) * (1 - SLACK);
  const needHigh = p.topP * (head + bulkHigh) * (1 + SLACK);
  if (needHigh >= head) return null;
  const m = nucleus(s, n, needHigh);
  // Unambiguous iff the nucleus less its lightest member stays below every possible threshold.
  let without = 0;
  for (let k = 0; k < m - 1; k++) without += w[k]!;
  return without < needLow ? m : null;
}

/** The exact path: every token above the negligible floor is a candidate. */
function fromAll(s: Scratch, logits: Float32Array, max: number, scale: number, p: ResolvedSampling): number {
  const { idx, w, bucket } = s;
  let n = 0;
  let total = 0;
  for (let i = 0; i < logits.length; i++) {
    const y = (max - logits[i]!) * scale;
    if (y < LIMIT) {
      const b = y | 0;
      idx[n] = i;
      bucket[n] = b;
      total += w[n] = weightAt(y, b);
      n++;
    }
  }
  if (p.topK > 0 && p.topK < n) n = selectLargest(s, n, p.topK);
  else if (p.minP === 0) return p.topP < 1 ? nucleus(s, n, p.topP * total) : n;
  return filtered(s, n, p);
}

/** After top-k (or with min-p): min-p, then the nucleus of what is left. */
function filtered(s: Scratch, n: number, p: ResolvedSampling): number {
  if (p.minP > 0) n = keepAtLeast(s, n, p.minP); // the top weight is exactly 1
  if (p.topP >= 1) return n;
  let total = 0;
  for (let k = 0; k < n; k++) total += s.w[k]!;
  return nucleus(s, n, p.topP * total);
}

/** exp(-y / STEPS) for 0 ≤ y < LIMIT (b = floor(y)); relative error below 1e-11 (Taylor, |r| < 1/64). */
function weightAt(y: number, b: number): number {
  const r = (b - y) / STEPS;
  return EXP_STEP[b]! * (1 + r * (1 + r * (1 / 2 + r * (1 / 6 + r * (1 / 24)))));
}

function draw(idx: Int32Array, w: Float64Array, n: number, rng: () => number): number {
  let total = 0;
  for (let i = 0; i < n; i++) total += w[i]!;
  let r = rng() * total;
  for (let i = 0; i < n; i++) {
    r -= w[i]!;
    if (r < 0) return idx[i]!;
  }
  return idx[n - 1]!;
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

function swap(s: Scratch, a: number, b: number): void {
  const { idx, w, bucket } = s;
  const i = idx[a]!;
  idx[a] = idx[b]!;
  idx[b] = i;
  const v = w[a]!;
  w[a] = w[b]!;
  w[b] = v;
  const k = bucket[a]!;
  bucket[a] = bucket[b]!;
  bucket[b] = k;
}

/**
 * Three-way partition of [lo, hi) around `pivot`: larger weights first, then equal, then smaller.
 * Returns [end of larger, end of equal].
 */
function partition(s: Scratch, lo: number, hi: number, pivot: number): [number, number] {
  const { w } = s;
  let lt = lo;
  let i = lo;
  let gt = hi;
  while (i < gt) {
    const v = w[i]!;
    if (v > pivot) swap(s, lt++, i++);
    else if (v < pivot) swap(s, i, --gt);
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
function selectLargest(s: Scratch, n: number, k: number): number {
  let lo = 0;
  let hi = n;
  while (hi - lo > 1) {
    const [gtEnd, eqEnd] = partition(s, lo, hi, medianOfThree(s.w, lo, hi));
    if (k <= gtEnd) hi = gtEnd;
    else if (k <= eqEnd) break;
    else lo = eqEnd;
  }
  return k;
}

/** Keeps candidates whose weight is at least `threshold` (order not kept). Returns the new count. */
function keepAtLeast(s: Scratch, n: number, threshold: number): number {
  const { idx, w, bucket } = s;
  let m = 0;
  for (let i = 0; i < n; i++) {
    if (w[i]! >= threshold) {
      idx[m] = idx[i]!;
      w[m] = w[i]!;
      bucket[m] = bucket[i]!;
      m++;
    }
  }
  return m;
}

/**
 * The nucleus: moves to [0, m) the smallest set of the most likely candidates whose mass reaches
 * `need`, and returns m; the lightest member is at m - 1. Many candidates are first bucketed by
 * weight (whole buckets above the boundary one are in); the boundary range is resolved by partial
 * selection: each round partitions it around a pivot and keeps only the side where the threshold lies.
 */
function nucleus(s: Scratch, n: number, need: number): number {
  let lo = 0;
  let hi = n;
  if (n >= BUCKET_MIN) [lo, hi, need] = boundaryBucket(s, n, need);
  const { idx, w } = s;
  while (hi - lo > SMALL) {
    const [gtEnd, eqEnd] = partition(s, lo, hi, medianOfThree(w, lo, hi));
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

/**
 * Buckets the candidates by weight: those in buckets heavier than the one where the mass reaches
 * `need` move to [0, lo), that bucket's members to [lo, hi). Returns [lo, hi, need left in the bucket].
 */
function boundaryBucket(s: Scratch, n: number, need: number): [number, number, number] {
  const { idx, w, bucket, mass, spillIdx, spillW } = s;
  mass.fill(0);
  for (let k = 0; k < n; k++) {
    const b = bucket[k]!;
    mass[b] = mass[b]! + w[k]!;
  }
  let edge = 0;
  while (edge < LIMIT - 1 && mass[edge]! < need) need -= mass[edge++]!;
  let m = 0;
  let spilled = 0;
  for (let k = 0; k < n; k++) {
    const b = bucket[k]!;
    if (b === edge) {
      spillIdx[spilled] = idx[k]!;
      spillW[spilled++] = w[k]!;
    }
    idx[m] = idx[k]!; // branch-free compaction of the heavier buckets
    w[m] = w[k]!;
    m += (b - edge) >>> 31;
  }
  idx.set(spillIdx.subarray(0, spilled), m);
  w.set(spillW.subarray(0, spilled), m);
  return [m, m + spilled, need];
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
