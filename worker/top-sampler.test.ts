import { describe, expect, it } from 'vitest';
import type { GenerateRequest } from '../src/engine/contract';
import { MODELS } from '../src/engine/models';
import { FakeLogitsBackend } from '../tests/fakes/fake-backends';
import { Engine } from './engine';
import { nodeGrammars } from './grammar/node-grammars';
import { createRng } from './rng';
import { createSampler, createTopSampler, LLAMA_31_SAMPLING, topSamplingApplies, type ResolvedSampling, type TopLogits } from './sampler';

const VOCAB = 128256;
const K = 256;
const full = createSampler(VOCAB);
const fromTop = createTopSampler();
const params = (p: Partial<ResolvedSampling>): ResolvedSampling => ({ ...LLAMA_31_SAMPLING, ...p });

/** A language model's shape: a Gaussian bulk (σ 2.5) and 300 plausible tokens, the r-th at 28 − 4 ln r. */
function makeLmLogits(seed: number): Float32Array {
  const rng = createRng(seed);
  const out = new Float32Array(VOCAB);
  for (let i = 0; i < VOCAB; i++) out[i] = 2.5 * Math.sqrt(-2 * Math.log(rng() + 1e-12)) * Math.cos(2 * Math.PI * rng());
  for (let r = 1; r <= 300; r++) out[Math.floor(rng() * VOCAB)] = 28 - 4 * Math.log(r) + rng();
  return out;
}

/** One vector per seed for the whole file (every caller copies before it could write). */
const lmLogitsBySeed = new Map<number, Float32Array>();
function lmLogits(seed: number): Float32Array {
  let logits = lmLogitsBySeed.get(seed);
  if (!logits) lmLogitsBySeed.set(seed, (logits = makeLmLogits(seed)));
  return logits;
}

/**
 * What a runtime holding the vector hands over: its K largest (any order) and the largest left out.
 * The order is largest first, the lower id first on a tie; only the ids at or above the (k+1)-th largest
 * value are ordered, which gives the same K and the same one left out as ordering the whole vector.
 */
function topOf(logits: Float32Array, k = K): TopLogits {
  const threshold = logits.slice().sort()[logits.length - 1 - k]!;
  const order = Array.from(logits.keys())
    .filter((i) => logits[i]! >= threshold)
    .sort((a, b) => logits[b]! - logits[a]! || a - b);
  const ids = order.slice(0, k);
  return { ids: ids.reverse(), logits: ids.map((i) => logits[i]!), outsideMax: logits[order[k]!]!, outside: logits.length - k };
}

describe('sampling from the largest logits', () => {
  const cases: Array<[string, Partial<ResolvedSampling>]> = [
    ["Llama 3.1's defaults (T 0.6, top-p 0.9)", {}],
    ['T 1, top-p 0.95', { temperature: 1, topP: 0.95 }],
    ['top-k 5', { topK: 5, topP: 1 }],
    ['min-p 0.05', { minP: 0.05 }],
    ['greedy', { temperature: 0 }],
  ];
  for (const [name, p] of cases) {
    it(`decides most steps of a language model's logits, each time the token the full sampler draws (${name})`, () => {
      let decided = 0;
      for (let seed = 1; seed <= 40; seed++) {
        const logits = lmLogits(seed);
        const id = fromTop(topOf(logits), params(p), createRng(seed * 7));
        if (id === null) continue;
        decided++;
        expect(id).toBe(full(logits.slice(), params(p), createRng(seed * 7), []));
      }
      expect(decided).toBeGreaterThanOrEqual(36);
    });
  }

  it('declines when the unlisted tokens could matter: a flat vector, top-p 1, or a top-k beyond the head', () => {
    const flat = Float32Array.from({ length: VOCAB }, (_, i) => Math.sin(i));
    expect(fromTop(topOf(flat), params({}), createRng(1))).toBeNull();
    const peaked = lmLogits(3);
    expect(fromTop(topOf(peaked), params({ topP: 1 }), createRng(1))).toBeNull();
    expect(fromTop(topOf(peaked), params({ topK: 500, topP: 1 }), createRng(1))).toBeNull();
  });

  it('greedy declines when an unlisted id may tie the best (the lowest id wins a tie)', () => {
    const logits = new Float32Array(VOCAB).fill(1);
    logits[9] = 5;
    const top: TopLogits = { ids: [9], logits: [5], outsideMax: 5, outside: VOCAB - 1 };
    expect(fromTop(top, params({ temperature: 0 }), createRng(1))).toBeNull();
    expect(fromTop({ ...top, outsideMax: 4.99 }, params({ temperature: 0 }), createRng(1))).toBe(9);
  });

  it('applies a lowering bias and bans to the listed ids exactly as the full sampler does', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const logits = lmLogits(seed);
      const top = topOf(logits);
      const best = top.ids[top.ids.length - 1]!;
      const p = params({ logitBias: { [best]: -Infinity, [top.ids[top.ids.length - 2]!]: -1.5 } });
      const id = fromTop(top, p, createRng(seed));
      expect(id).not.toBe(best);
      if (id !== null) expect(id).toBe(full(logits.slice(), p, createRng(seed), []));
    }
  });

  it('applies only where it can decide: no penalties, no raised logits', () => {
    expect(topSamplingApplies(params({}))).toBe(true);
    expect(topSamplingApplies(params({ logitBias: { 5: -Infinity, 6: -2 } }))).toBe(true);
    expect(topSamplingApplies(params({ logitBias: { 5: 0.5 } }))).toBe(false);
    expect(topSamplingApplies(params({ repetitionPenalty: 1.1 }))).toBe(false);
    expect(topSamplingApplies(params({ presencePenalty: -0.5 }))).toBe(false);
    expect(topSamplingApplies(params({ repetitionPenalty: 1.1, penaltyWindow: 0 }))).toBe(true);
  });
});

describe('the engine offers the largest logits only where nothing needs the whole vector', () => {
  const NO_GPU = async () => ({ webgpu: false, shaderF16: false, adapter: null, limits: null });
  // "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHello!<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
  const tokens = [128000, 128006, 882, 128007, 271, 9906, 0, 128009, 128006, 78191, 128007, 271];

  async function topSteps(request: Omit<GenerateRequest, 'tokens'>): Promise<{ offered: number; decided: number; emitted: number }> {
    const backend = new FakeLogitsBackend({ topLogits: 16 });
    const engine = new Engine({ models: MODELS, createBackend: async () => backend, capabilities: NO_GPU, grammars: nodeGrammars() });
    await engine.load('tiny-llama');
    const result = await engine.generate({ tokens, maxTokens: 8, ...request });
    const top = backend.calls.filter((c) => c.op === 'top');
    return { offered: top.length, decided: top.filter((c) => c.n === 1).length, emitted: result.tokens.length };
  }

  it('plain sampling and greedy: every step decided from them', async () => {
    for (const sampling of [{ seed: 1 }, { temperature: 0 }]) {
      const { offered, decided, emitted } = await topSteps({ sampling });
      expect(emitted).toBeGreaterThan(0);
      expect(decided).toBe(offered);
      expect(offered).toBeGreaterThanOrEqual(emitted);
    }
  });

  it('not with log probabilities, penalties, a raised bias or a constraint; a forced id is picked from the whole vector', async () => {
    expect((await topSteps({ logprobs: 2 })).offered).toBe(0);
    expect((await topSteps({ sampling: { repetitionPenalty: 1.2 } })).offered).toBe(0);
    expect((await topSteps({ sampling: { logitBias: { 1500: 2 } } })).offered).toBe(0);
    expect((await topSteps({ constraint: { type: 'json_object' } })).offered).toBe(0);
    const forced = await topSteps({ sampling: { seed: 1 }, logitsProcessors: [{ type: 'force', tokens: [40, 41, 42] }] });
    // Eight picks, the first three forced.
    expect(forced.emitted).toBe(8);
    expect(forced.offered).toBe(5);
  });
});
