import { describe, expect, it } from 'vitest';
import { createRng } from './rng';
import { argmax, createSampler, LLAMA_31_SAMPLING, resolveSampling, type ResolvedSampling } from './sampler';

const sampler = createSampler(128256);
const params = (p: Partial<ResolvedSampling>): ResolvedSampling => ({ ...LLAMA_31_SAMPLING, ...p });

function randomLogits(n: number, seed: number, spread = 4): Float32Array {
  const rng = createRng(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    // Box–Muller: a bell of logits plus a few strong peaks, like a language model's.
    out[i] = spread * Math.sqrt(-2 * Math.log(rng() + 1e-12)) * Math.cos(2 * Math.PI * rng());
  }
  for (let k = 0; k < 5; k++) out[Math.floor(rng() * n)] = spread * (3 + k);
  return out;
}

/** The reference: softmax, full sort, smallest prefix reaching topP. */
function referenceNucleus(logits: Float32Array, temperature: number, topP: number): Set<number> {
  const max = logits.reduce((m, l) => Math.max(m, l), -Infinity);
  const p = Array.from(logits, (l, i) => ({ i, w: Math.exp((l - max) / temperature) }));
  const total = p.reduce((s, x) => s + x.w, 0);
  p.sort((a, b) => b.w - a.w || a.i - b.i);
  const out = new Set<number>();
  let acc = 0;
  for (const x of p) {
    out.add(x.i);
    acc += x.w;
    if (acc >= topP * total) break;
  }
  return out;
}

function histogram(logits: Float32Array, p: ResolvedSampling, draws: number, seed = 1): Map<number, number> {
  const rng = createRng(seed);
  const counts = new Map<number, number>();
  for (let d = 0; d < draws; d++) {
    const id = sampler(logits.slice(), p, rng, []);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

describe('greedy', () => {
  const cases: Record<string, { logits: number[]; expected: number }> = {
    'largest wins': { logits: [0.1, 3, -2, 2.9], expected: 1 },
    'a tie goes to the lowest id': { logits: [1, 5, 5, 0], expected: 1 },
    'NaN never wins': { logits: [NaN, -1, -3], expected: 1 },
    '-Infinity is banned': { logits: [-Infinity, -50, -Infinity], expected: 1 },
  };
  for (const [name, { logits, expected }] of Object.entries(cases)) {
    it(name, () => {
      expect(argmax(Float32Array.from(logits))).toBe(expected);
      expect(sampler(Float32Array.from(logits), params({ temperature: 0 }), createRng(0), [])).toBe(expected);
    });
  }
  it('everything banned is an error, not a silent token', () => {
    expect(() => sampler(Float32Array.from([-Infinity, -Infinity]), params({}), createRng(0), [])).toThrow(/banned/);
    expect(() => sampler(Float32Array.from([-Infinity]), params({ temperature: 0 }), createRng(0), [])).toThrow(/banned/);
  });
});

describe('temperature', () => {
  it('draws from softmax(logits / T)', () => {
    const logits = Float32Array.from([2, 1, 0, -1]);
    const T = 0.7;
    const weights = Array.from(logits, (l) => Math.exp(l / T));
    const total = weights.reduce((a, b) => a + b);
    const draws = 40_000;
    const counts = histogram(logits, params({ temperature: T, topP: 1 }), draws);
    weights.forEach((wt, id) => {
      const expected = (wt / total) * draws;
      expect(Math.abs((counts.get(id) ?? 0) - expected)).toBeLessThan(5 * Math.sqrt(expected) + 5);
    });
  });
});

describe('top-p without sorting', () => {
  for (const [seed, topP, temperature, spread] of [
    [1, 0.9, 0.6, 4],
    [2, 0.5, 1, 1],
    [3, 0.95, 1.5, 0.5],
    [4, 0.99, 0.6, 0.2],
  ] as const) {
    it(`draws only from the reference nucleus (seed ${seed}, top-p ${topP}, T ${temperature}, spread ${spread})`, () => {
      const logits = randomLogits(seed === 4 ? 128256 : 5000, seed, spread);
      const nucleus = referenceNucleus(logits, temperature, topP);
      const counts = histogram(logits, params({ temperature, topP }), seed === 4 ? 200 : 3000, seed);
      for (const id of counts.keys()) expect(nucleus.has(id)).toBe(true);
      if (nucleus.size <= 3) expect(counts.size).toBe(nucleus.size);
    });
  }

  it('keeps the token that crosses the threshold (smallest set reaching top-p)', () => {
    // probabilities 0.5, 0.3, 0.2 → top-p 0.6 needs the first two.
    const logits = Float32Array.from([Math.log(0.5), Math.log(0.3), Math.log(0.2)]);
    const counts = histogram(logits, params({ temperature: 1, topP: 0.6 }), 4000);
    expect([...counts.keys()].sort()).toEqual([0, 1]);
    expect(counts.get(0)! / 4000).toBeCloseTo(0.625, 1);
  });
});

describe('top-k and min-p', () => {
  const logits = Float32Array.from([5, 4.9, 4.8, 4.7, 0, 0, 0]);
  it('top-k 2 keeps the two largest', () => {
    const counts = histogram(logits, params({ temperature: 1, topP: 1, topK: 2 }), 2000);
    expect([...counts.keys()].sort()).toEqual([0, 1]);
  });
  it('top-k 1 is greedy', () => {
    expect([...histogram(logits, params({ temperature: 2, topP: 1, topK: 1 }), 200).keys()]).toEqual([0]);
  });
  it('min-p drops tokens below minP × the top probability', () => {
    // exp(-0.3) ≈ 0.74 ≥ 0.7 survives; exp(-5) does not.
    const counts = histogram(logits, params({ temperature: 1, topP: 1, minP: 0.7 }), 4000);
    expect([...counts.keys()].sort()).toEqual([0, 1, 2, 3]);
  });
});

describe('penalties and bias', () => {
  const logits = () => Float32Array.from([3, 2.5, 1, -1]);
  const greedy = (p: Partial<ResolvedSampling>, recent: number[]) => sampler(logits(), params({ temperature: 0, ...p }), createRng(0), recent);
  const cases: Record<string, { p: Partial<ResolvedSampling>; recent: number[]; expected: number }> = {
    'no penalty: argmax': { p: {}, recent: [0, 0], expected: 0 },
    'repetition penalty divides a seen positive logit': { p: { repetitionPenalty: 1.3 }, recent: [0], expected: 1 },
    'frequency penalty grows with the count': { p: { frequencyPenalty: 0.3 }, recent: [0, 0], expected: 1 },
    'frequency penalty, one occurrence is not enough': { p: { frequencyPenalty: 0.3 }, recent: [0], expected: 0 },
    'presence penalty counts once': { p: { presencePenalty: 0.6 }, recent: [0, 0, 0], expected: 1 },
    'outside the penalty window: no effect': { p: { repetitionPenalty: 2, penaltyWindow: 1 }, recent: [0, 3], expected: 0 },
    'logit bias can promote': { p: { logitBias: { 3: 10 } }, recent: [], expected: 3 },
    'logit bias -Infinity bans': { p: { logitBias: { 0: -Infinity } }, recent: [], expected: 1 },
  };
  for (const [name, { p, recent, expected }] of Object.entries(cases)) it(name, () => expect(greedy(p, recent)).toBe(expected));
});

describe('reproducibility', () => {
  it('the same seed gives the same tokens; another seed, others', () => {
    const logits = randomLogits(128256, 9, 0.3);
    const run = (seed: number) => {
      const rng = createRng(seed);
      return Array.from({ length: 20 }, () => sampler(logits.slice(), params({}), rng, []));
    };
    expect(run(42)).toEqual(run(42));
    expect(run(42)).not.toEqual(run(43));
  });
});

describe('resolveSampling', () => {
  it('defaults to Llama 3.1 generation config', () => {
    expect(resolveSampling()).toMatchObject({ temperature: 0.6, topP: 0.9, topK: 0, minP: 0, repetitionPenalty: 1 });
  });
  const bad: Record<string, object> = {
    'negative temperature': { temperature: -1 },
    'top-p of 0': { topP: 0 },
    'top-p above 1': { topP: 1.5 },
    'fractional top-k': { topK: 2.5 },
    'min-p of 1': { minP: 1 },
    'zero repetition penalty': { repetitionPenalty: 0 },
  };
  for (const [name, p] of Object.entries(bad)) it(`rejects ${name}`, () => expect(() => resolveSampling(p)).toThrow(RangeError));
});
