/**
 * Section `sampler`: per-token time of our sampler (worker/sampler.ts) against the full-sort top-p
 * sampler, on 128,256-logit vectors at Llama 3.1's defaults (temperature 0.6, top-p 0.9): the
 * language-model-like case (the target: ≤ 0.5 ms median, ≥ 10× the sort) and the flat worst case.
 * Before timing, every vector is checked: our draws must lie in the sort sampler's nucleus.
 */
import { VOCAB_SIZE } from '../src/format/special-tokens';
import { createRng } from '../worker/rng';
import { createSampler, resolveSampling } from '../worker/sampler';
import { flatLogits, lmLikeLogits, shapeOf } from './logits';
import { interleave, median, round } from './measure';
import type { BenchSection, SectionResult } from './section';
import { createSortSampler, sortNucleus } from './sort-sampler';

const TEMPERATURE = 0.6;
const TOP_P = 0.9;
/** Distinct vectors per case, cycled (so no single vector's luck decides). */
const VECTORS = 12;
const ROUNDS = 25;
/** Tokens per timed batch: ours is fast enough to need batching for the clock's resolution. */
const OURS_BATCH = 24;
const SORT_BATCH = 2;
const TARGET_MS = 0.5;
const TARGET_SPEEDUP = 10;

export const samplerSection: BenchSection = {
  name: 'sampler',
  summary: `per-token sampling time, ${VOCAB_SIZE.toLocaleString('en-US')} logits, T ${TEMPERATURE}, top-p ${TOP_P}: ours vs full sort`,
  async run() {
    const lm = await measureCase(Array.from({ length: VECTORS }, (_, i) => lmLikeLogits(VOCAB_SIZE, 1000 + i)));
    const flat = await measureCase(Array.from({ length: VECTORS }, (_, i) => flatLogits(VOCAB_SIZE, 2000 + i)));
    const speedup = lm.sortMs / lm.oursMs;
    const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
    const out: SectionResult = {
      oursMsMedian: round(lm.oursMs),
      sortMsMedian: round(lm.sortMs),
      speedup: round(speedup),
      target: `≤ ${TARGET_MS} ms: ${verdict(lm.oursMs <= TARGET_MS)}; ≥ ${TARGET_SPEEDUP}× the sort: ${verdict(speedup >= TARGET_SPEEDUP)}`,
      ...prefixed('lm', lm.shape),
      flatOursMsMedian: round(flat.oursMs),
      flatSortMsMedian: round(flat.sortMs),
      flatSpeedup: round(flat.sortMs / flat.oursMs),
      ...prefixed('flat', flat.shape),
      rounds: ROUNDS,
    };
    return out;
  },
};

interface CaseResult {
  oursMs: number;
  sortMs: number;
  shape: Record<string, number>;
}

async function measureCase(vectors: Float32Array[]): Promise<CaseResult> {
  const ours = createSampler(VOCAB_SIZE);
  const params = resolveSampling({ temperature: TEMPERATURE, topP: TOP_P });
  const sort = createSortSampler();
  const rng = createRng(7);
  checkAgainstSort(vectors, (l) => ours(l, params, rng, []));

  let next = 0;
  const batch = (size: number, pick: (logits: Float32Array) => number) => () => {
    const t0 = performance.now();
    for (let k = 0; k < size; k++) pick(vectors[next++ % vectors.length]!);
    return (performance.now() - t0) / size;
  };
  // Our sampler does not modify the logits without bias or penalties, and the sort never does:
  // both read the same vectors, with no copy in the timed loop.
  const competitors = {
    ours: batch(OURS_BATCH, (l) => ours(l, params, rng, [])),
    sort: batch(SORT_BATCH, (l) => sort(l, TEMPERATURE, TOP_P, rng)),
  };
  await interleave(1, competitors); // warm-up: both optimized before the first timed round
  const samples = await interleave(ROUNDS, competitors);
  const shapes = vectors.map((v) => shapeOf(v, TEMPERATURE, TOP_P));
  return {
    oursMs: median(samples.ours),
    sortMs: median(samples.sort),
    shape: {
      SignificantMedian: median(shapes.map((s) => s.significant)),
      Top1Median: round(median(shapes.map((s) => s.top1))),
      NucleusMedian: median(shapes.map((s) => s.nucleus)),
      EntropyNatsMedian: round(median(shapes.map((s) => s.entropy))),
    },
  };
}

/** Draws from every vector must be members of the sort sampler's nucleus. */
function checkAgainstSort(vectors: Float32Array[], pick: (logits: Float32Array) => number): void {
  vectors.forEach((v, i) => {
    const nucleus = sortNucleus(v, TEMPERATURE, TOP_P);
    for (let d = 0; d < 20; d++) {
      const id = pick(v);
      if (!nucleus.has(id)) throw new Error(`sampler: vector ${i} drew ${id}, outside the top-p nucleus of the full sort`);
    }
  });
}

function prefixed(prefix: string, figures: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(figures).map(([k, v]) => [`${prefix}${k}`, v]));
}
