import { describe, expect, it } from 'vitest';
import { samplingRequest } from '../../../tests/support/sampling-request';
import { completionBody, logitBias } from './completion-request';

describe('logitBias (JSON has no -Infinity)', () => {
  it.each([
    ['llama.cpp: a ban is false, finite biases pass, +Infinity is a large finite', 'llama.cpp', { 5: -Infinity, 6: -2.5, 7: 250, 8: Infinity }, { 5: false, 6: -2.5, 7: 250, 8: 1e30 }],
    ['vLLM: clamped to ±100, a ban is -100', 'vllm', { 5: -Infinity, 6: -2.5, 7: 250, 8: Infinity }, { 5: -100, 6: -2.5, 7: 100, 8: 100 }],
    ['an unknown OpenAI-compatible server: as vLLM', 'openai-compatible', { 5: -Infinity }, { 5: -100 }],
  ] as const)('%s', (_, kind, bias, expected) => {
    const out = logitBias(bias, kind);
    expect(out).toEqual(expected);
    expect(JSON.parse(JSON.stringify(out))).toEqual(expected);
  });

  it('rejects NaN', () => {
    expect(() => logitBias({ 3: Number.NaN }, 'vllm')).toThrow(RangeError);
  });
});

describe('completionBody', () => {
  const request = samplingRequest([1, 2, 3], { sampling: { temperature: 0.7, repetitionPenalty: 1.1, penaltyWindow: 32, frequencyPenalty: 0.2, presencePenalty: 0.3 }, seed: -1, maxTokens: 9 });

  it('writes every setting under both servers’ names', () => {
    const body = completionBody(request, 'llama.cpp', 'm');
    expect(body).toMatchObject({
      model: 'm', prompt: [1, 2, 3], max_tokens: 9, temperature: 0.7, top_p: 0.9, top_k: 0, min_p: 0,
      repetition_penalty: 1.1, repeat_penalty: 1.1, repeat_last_n: 32, frequency_penalty: 0.2, presence_penalty: 0.3,
      // Seeds are sent as uint32 (llama.cpp's type): -1 → 4294967295.
      seed: 4294967295,
    });
    expect(JSON.stringify(body)).not.toMatch(/Infinity|null/);
  });

  it('leaves the model out when none is configured', () => {
    expect(completionBody(request, 'llama.cpp', undefined)).not.toHaveProperty('model');
    expect(completionBody(request, 'llama.cpp', '')).not.toHaveProperty('model');
  });
});
