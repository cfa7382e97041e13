/**
 * The bench's logic without its timings: the tool-loop workload keeps the prefix cache's invariant
 * (with the cache, the engine prefills exactly the appended ids; re-prefilling runs every prompt id),
 * the sort baseline agrees with our sampler, and results.json merging keeps other sections. The loop a
 * real llama-server runs: sections.llama-server.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SamplingParams } from '../src/engine/contract';
import { VOCAB_SIZE } from '../src/format/special-tokens';
import { loadTokenizer } from '../src/format/tokenizer/load-node';
import { createNodeEngine } from '../worker/create-node-engine';
import type { Engine } from '../worker/engine';
import { createRng } from '../worker/rng';
import { createSampler, resolveSampling } from '../worker/sampler';
import { lmLikeLogits } from './logits';
import { countRoundTrips, measurePrefixReuse } from './engine-workloads';
import { checkInvariant } from './loop';
import { simulate } from './context';
import { interleave, median } from './measure';
import { formatTable, mergeResults, parseResults } from './results';
import { measureInterleavedShare, measureShortBehindLong } from './serving-workloads';
import { createSortSampler, sortNucleus } from './sort-sampler';
import { runToolLoop, syntheticSearchResult } from './tool-loop';

const tokenizer = loadTokenizer();

describe('tool loop workload (tiny model)', () => {
  let cached: Engine;
  let stateless: Engine;
  beforeAll(async () => {
    cached = createNodeEngine();
    stateless = createNodeEngine();
    await Promise.all([cached.load('tiny-llama'), stateless.load('tiny-llama')]);
  });
  afterAll(() => Promise.all([cached.unload(), stateless.unload()]));

  it('with the cache, prefills exactly the appended ids; without, every prompt id (more)', async () => {
    const options = { steps: 3, resultTokens: 60 };
    const withCache = await runToolLoop(cached, tokenizer, { ...options, reprefill: false });
    const without = await runToolLoop(stateless, tokenizer, { ...options, reprefill: true });
    expect(withCache.prefilled).toBe(withCache.appended);
    expect(without.prefilled).toBe(without.promptTotal);
    expect(without.prefilled).toBeGreaterThan(withCache.prefilled);
    expect(() => checkInvariant(withCache, without)).not.toThrow();
    // A second run on the same engine starts from an empty cache and counts the same.
    const again = await runToolLoop(cached, tokenizer, { ...options, reprefill: false });
    expect(again).toMatchObject({ prefilled: withCache.prefilled, appended: withCache.appended });
  });

  it('a prefilled count that differs from the appended ids fails the check', () => {
    const run = { prefilled: 10, appended: 10, promptTotal: 10, finalPromptTokens: 10, prefillMs: 0, wallMs: 0 };
    expect(() => checkInvariant({ ...run, prefilled: 11 }, { ...run, prefilled: 20, promptTotal: 20 })).toThrow(/prefilled 11/);
  });

  it('synthetic tool results are deterministic and at least the asked size', () => {
    const a = syntheticSearchResult(2, 400, tokenizer);
    expect(syntheticSearchResult(2, 400, tokenizer)).toBe(a);
    expect(tokenizer.encode(a).length).toBeGreaterThanOrEqual(400);
    expect(tokenizer.encode(a).length).toBeLessThan(500);
    expect(() => JSON.parse(a)).not.toThrow();
  });
});

describe('context section (counted, not timed)', () => {
  it('the block drop prefills fewer ids, in fewer drops, than dropping just enough; every prompt fits', () => {
    const blocks = simulate(0.6);
    const justEnough = simulate(0.99);
    expect(blocks.prefilled).toBeLessThan(justEnough.prefilled);
    expect(blocks.drops).toBeLessThan(justEnough.drops);
    expect(blocks.drops).toBeGreaterThan(0);
  });
});

describe('engine section workloads (tiny model, a real comlink boundary)', () => {
  it('one call crosses the boundary per agent step, none per tool result (counted and cut on the page)', async () => {
    const trips = await countRoundTrips({ steps: 3, resultTokens: 200, maxResultTokens: 120 });
    expect(trips).toMatchObject({ steps: 3, toolResults: 2, calls: 3, callsDuringTools: 0, renders: 0 });
  });

  it('the loop renders the conversation once and then encodes each appended result once', async () => {
    const trips = await countRoundTrips({ steps: 3, resultTokens: 200, maxResultTokens: 1500 });
    expect(trips.renders).toBe(0);
    // Each appended result once, and the ipython header ("ipython", "\n\n") the first time.
    expect(trips.encodedChars).toBe(trips.appendedChars + 'ipython\n\n'.length);
  });

  it('regenerate and edit-last-message prefill exactly the suffix that diverges from the cache, not the history', async () => {
    const reuse = await measurePrefixReuse(800);
    expect(reuse.historyTokens).toBeGreaterThanOrEqual(800);
    expect(reuse.regeneratePrefilled).toBe(reuse.regenerateSuffix);
    expect(reuse.editPrefilled).toBe(reuse.editSuffix);
    expect(reuse.editSuffix).toBeLessThan(reuse.historyTokens / 4);
  });
});

describe('serving section workloads (through the server, the official client)', () => {
  it('two conversations interleaved on four slots read from the cache exactly what each reads alone; on one slot, less', async () => {
    const four = await measureInterleavedShare('micro-llama', 4);
    expect(four.aloneCached).toBeGreaterThan(0);
    expect(four.interleavedCached).toBe(four.aloneCached);
    expect(four.share).toBe(1);
    const one = await measureInterleavedShare('micro-llama', 1);
    expect(one.aloneCached).toBe(four.aloneCached);
    expect(one.interleavedCached).toBeLessThan(one.aloneCached);
  }, 60_000);

  it('short requests end while a long generation on another slot still runs; on one slot the check that they did throws', async () => {
    const options = { model: 'tiny-llama', longTokens: 300, rounds: 1, shortsPerRound: 2 };
    const two = await measureShortBehindLong({ ...options, slots: 2 });
    expect([two.aloneMs.length, two.duringMs.length]).toEqual([2, 2]);
    await expect(measureShortBehindLong({ ...options, slots: 1 })).rejects.toThrow(/the long generation ended before short request 1 did/);
  }, 120_000);
});

describe('sampler section: ours against the full sort', () => {
  it('the sort baseline and our sampler draw from the same nucleus', () => {
    const ours = createSampler(VOCAB_SIZE);
    const sort = createSortSampler();
    const params = resolveSampling({ temperature: 0.6, topP: 0.9 });
    const rng = createRng(3);
    for (let seed = 0; seed < 2; seed++) {
      const logits = lmLikeLogits(VOCAB_SIZE, seed);
      const nucleus = sortNucleus(logits, 0.6, 0.9);
      for (let d = 0; d < 10; d++) expect(nucleus.has(ours(logits, params, rng, []))).toBe(true);
      for (let d = 0; d < 3; d++) expect(nucleus.has(sort(logits, 0.6, 0.9, rng))).toBe(true);
    }
  });

  // Every path of worker/sampler.ts (head only, bucketed nucleus, every weight, fallbacks, edge values)
  // against a full sort. These belong with worker/sampler.test.ts; they sit here with the bench's baseline.
  const n = 20_000;
  const bulk = (seed: number, sd: number) => {
    const rng = createRng(seed);
    return Float32Array.from({ length: n }, () => sd * Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng()));
  };
  const withValues = (l: Float32Array, values: Record<number, number>) => {
    for (const [id, v] of Object.entries(values)) l[Number(id)] = v;
    return l;
  };
  const cases: Record<string, { logits: () => Float32Array; params: SamplingParams }> = {
    'language-model-like, Llama defaults (head only)': { logits: () => lmLikeLogits(n, 5), params: {} },
    'flat (bucketed nucleus of thousands)': { logits: () => bulk(6, 1), params: {} },
    'all banned but two (a forced step)': { logits: () => withValues(new Float32Array(n).fill(-Infinity), { 17: 0, 900: -0.3 }), params: {} },
    'NaN and -Infinity entries weigh nothing': {
      logits: () => withValues(bulk(7, 2.5), { 1: NaN, 2: -Infinity, 3: NaN, 4: 9, 5: 8.5, 6: -1e30 }),
      params: { topP: 0.95 },
    },
    'top-p 1: every weight': { logits: () => withValues(bulk(8, 0.5), { 10: 4 }), params: { topP: 1, temperature: 1 } },
    'top-k larger than the head': { logits: () => withValues(bulk(9, 2.5), { 11: 20 }), params: { topK: 500 } },
    'min-p below the head floor': { logits: () => lmLikeLogits(n, 10), params: { minP: 1e-7, topP: 0.99 } },
    'min-p above it, then top-p': { logits: () => lmLikeLogits(n, 11), params: { minP: 0.05, topP: 0.5, temperature: 1 } },
    'ties at the boundary': { logits: () => bulk(12, 1).map((x) => Math.round(x * 2) / 2), params: { topP: 0.3 } },
    '+Infinity wins outright': { logits: () => withValues(bulk(13, 1), { 42: Infinity }), params: {} },
  };
  for (const [name, { logits, params }] of Object.entries(cases)) {
    it(`draws only from the full-sort candidate set: ${name}`, () => {
      const vector = logits();
      const p = resolveSampling(params);
      const expected = referenceSet(vector, p);
      const sample = createSampler(n);
      const rng = createRng(1);
      const drawn = new Set<number>();
      for (let d = 0; d < 60; d++) drawn.add(sample(vector.slice(), p, rng, []));
      for (const id of drawn) expect(expected.has(id)).toBe(true);
      if (expected.size <= 2) expect(drawn.size).toBe(expected.size);
    });
  }
});

/** Candidates by full sort: weights above exp(-30) of the top, then top-k, min-p, top-p. */
function referenceSet(logits: Float32Array, p: ReturnType<typeof resolveSampling>): Set<number> {
  let max = -Infinity;
  for (const l of logits) if (l > max) max = l;
  if (max === Infinity) return new Set([logits.indexOf(Infinity)]);
  let c = Array.from(logits, (l, i) => ({ i, w: Math.exp((l - max) / p.temperature) })).filter((x) => x.w > Math.exp(-30));
  c.sort((a, b) => b.w - a.w || a.i - b.i);
  if (p.topK > 0) c = c.slice(0, p.topK);
  if (p.minP > 0) c = c.filter((x) => x.w >= p.minP);
  if (p.topP < 1) {
    const total = c.reduce((s, x) => s + x.w, 0);
    let mass = 0;
    const kept = [];
    for (const x of c) {
      if (mass >= p.topP * total) break;
      kept.push(x);
      mass += x.w;
    }
    // Equal weights at the boundary may be kept in any order: all of them are valid.
    const last = kept.at(-1)?.w;
    c = [...kept, ...c.slice(kept.length).filter((x) => x.w === last)];
  }
  return new Set(c.map((x) => x.i));
}

describe('measurement and results', () => {
  it('interleave rotates the order each round; median', async () => {
    const order: string[] = [];
    const samples = await interleave(3, { a: () => (order.push('a'), 1), b: () => (order.push('b'), 2) });
    expect(order).toEqual(['a', 'b', 'b', 'a', 'a', 'b']);
    expect(samples).toEqual({ a: [1, 1, 1], b: [2, 2, 2] });
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
  });

  const cases: Record<string, { previous: string | null; fresh: object; expected: object }> = {
    'no file yet': { previous: null, fresh: { sampler: { x: 1 } }, expected: { sampler: { x: 1 } } },
    'a skipped section keeps its figures': {
      previous: '{"sampler":{"x":1},"loop":{"y":2}}',
      fresh: { loop: { y: 3 } },
      expected: { sampler: { x: 1 }, loop: { y: 3 } },
    },
    'a section added later by someone else survives': {
      previous: '{"gpu":{"z":"manual"}}',
      fresh: { sampler: { x: 1 } },
      expected: { gpu: { z: 'manual' }, sampler: { x: 1 } },
    },
  };
  for (const [name, { previous, fresh, expected }] of Object.entries(cases)) {
    it(`merge: ${name}`, () => expect(mergeResults(parseResults(previous), fresh as never)).toEqual(expected));
  }

  it('a malformed results.json is an error, not silently replaced', () => {
    expect(() => parseResults('[1,2]')).toThrow(/keyed by section/);
    expect(() => parseResults('{"sampler": 3}')).toThrow(/^results\.json: "sampler" is not an object of figures/);
    expect(() => parseResults('{"sampler": {"ratio": [1]}}')).toThrow(/^results\.json: "sampler" is not an object of figures \(numbers, strings and objects of numbers\)$/);
    expect(() => parseResults('{"micro": {"byIntent": {"python": "high"}}}')).toThrow(/^results\.json: "micro" is not an object of figures/);
    expect(() => parseResults('{"micro": {"byIntent": {"python": {"sums": 1}}}}')).toThrow(/^results\.json: "micro" is not an object of figures/);
    expect(parseResults('{"micro": {"byIntent": {"python": 0.5}}}')).toEqual({ micro: { byIntent: { python: 0.5 } } });
    expect(() => parseResults('null')).toThrow(/^results\.json: expected an object keyed by section name$/);
  });

  it('the table names figures section.key', () => {
    expect(formatTable({ loop: { prefilledWithCache: 1867, ratio: 2.7, note: 'ok' } })).toBe(
      'loop.prefilledWithCache  1,867\nloop.ratio               2.7\nloop.note                ok',
    );
    expect(formatTable({ micro: { paraphrases: 0.5, byIntent: { python: 0.25, lookup: 1 } } })).toBe(
      'micro.paraphrases      0.5\nmicro.byIntent.python  0.25\nmicro.byIntent.lookup  1',
    );
  });
});
