import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { addStep, answerStatsSchema, emptyStats, statsText } from './answer-stats';

const step = (decodedTokens: number, decodeMs: number) => ({ promptTokens: 10, reusedTokens: 0, prefilledTokens: 10, decodedTokens, prefillMs: 999, decodeMs });
const label = (id: string) => (id === 'micro-llama' ? 'Micro Llama' : id);

describe('answer stats', () => {
  it('adds up the steps: tokens and decode time (prefill excluded), rate from the sums', () => {
    const s = addStep(addStep(emptyStats('micro-llama'), step(30, 100)), step(12, 40));
    expect(s).toEqual({ model: 'micro-llama', tokens: 42, decodeMs: 140, steps: 2 });
    expect(statsText(s, label)).toBe('Micro Llama · 42 tokens · 300 tok/s · 2 steps');
  });

  it('one step, a slow rate with a decimal, an unknown model, no time measured', () => {
    expect(statsText(addStep(emptyStats('x'), step(3, 1000)), label)).toBe('x · 3 tokens · 3.0 tok/s');
    expect(statsText(addStep(emptyStats(null), step(1, 0)), label)).toBe('unknown model · 1 token');
  });

  it('stored stats are read back, and damaged ones refused', () => {
    expect(v.parse(answerStatsSchema, { model: null, tokens: 1, decodeMs: 2, steps: 1 })).toEqual({ model: null, tokens: 1, decodeMs: 2, steps: 1 });
    expect(v.safeParse(answerStatsSchema, { model: 'm', tokens: 'many', decodeMs: 2, steps: 1 }).success).toBe(false);
  });
});
