import { expect, it } from 'vitest';
import { answerStatsText } from './answer-stats';

it('an answer in tokens, tokens per second of decoding and the model', () => {
  expect(answerStatsText({ tokens: 1234, decodeMs: 2000, model: 'micro-llama' })).toBe('1,234 tokens · 617.0 tok/s · micro-llama');
  expect(answerStatsText({ tokens: 1, decodeMs: 0, model: '' })).toBe('1 token');
});
