import { describe, expect, it } from 'vitest';
import type { ReplyConstraint } from '../../../src/engine/contract';
import { EngineError } from '../../../src/engine/errors';
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

  it('this project’s serve gets only the fields it implements: ids as vLLM streams them, no llama-server names', () => {
    const body = completionBody(request, 'llama-agent', 'micro-llama');
    expect(body).toMatchObject({ return_token_ids: true, stop_token_ids: request.stopIds, skip_special_tokens: false, repeat_last_n: 32 });
    for (const field of ['logprobs', 'cache_prompt', 'repeat_penalty', 'cache_salt']) expect(body).not.toHaveProperty(field);
  });

  it('a cache salt: vLLM’s cache_salt to vLLM and serve; llama-server, which has none, does not use its prompt cache for it', () => {
    const salted = { ...request, cacheSalt: 'client-a' };
    expect(completionBody(salted, 'vllm', 'm')).toMatchObject({ cache_salt: 'client-a', cache_prompt: true });
    expect(completionBody(salted, 'llama-agent', 'm')).toMatchObject({ cache_salt: 'client-a' });
    expect(completionBody(salted, 'llama.cpp', 'm')).toMatchObject({ cache_prompt: false });
    expect(completionBody(salted, 'llama.cpp', 'm')).not.toHaveProperty('cache_salt');
    expect(completionBody(request, 'llama.cpp', 'm')).toMatchObject({ cache_prompt: true });
  });
});

describe('completionBody: a constraint in the server’s own fields', () => {
  const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
  const grammar = 'root ::= "yes" | "no"';
  const cases: Record<string, { constraint: ReplyConstraint; kind: 'llama.cpp' | 'vllm'; fields: Record<string, unknown>; absent: string[] }> = {
    'llama-server, a schema: json_schema': { constraint: { type: 'json_schema', schema }, kind: 'llama.cpp', fields: { json_schema: schema }, absent: ['grammar', 'structured_outputs'] },
    'llama-server, any object: json_schema {"type": "object"}': { constraint: { type: 'json_object' }, kind: 'llama.cpp', fields: { json_schema: { type: 'object' } }, absent: ['grammar', 'structured_outputs'] },
    'llama-server, a grammar: grammar (GBNF)': { constraint: { type: 'grammar', grammar }, kind: 'llama.cpp', fields: { grammar }, absent: ['json_schema', 'structured_outputs'] },
    'vLLM, a schema: structured_outputs.json': { constraint: { type: 'json_schema', schema }, kind: 'vllm', fields: { structured_outputs: { json: schema } }, absent: ['json_schema', 'grammar', 'guided_json'] },
    'vLLM, any object: structured_outputs.json {"type": "object"}': { constraint: { type: 'json_object' }, kind: 'vllm', fields: { structured_outputs: { json: { type: 'object' } } }, absent: ['json_schema', 'grammar'] },
    'vLLM, a grammar: structured_outputs.grammar': { constraint: { type: 'grammar', grammar }, kind: 'vllm', fields: { structured_outputs: { grammar } }, absent: ['json_schema', 'grammar', 'guided_grammar'] },
  };

  it.each(Object.entries(cases))('%s', (_, { constraint, kind, fields, absent }) => {
    const body = completionBody({ ...samplingRequest([1, 2]), constraint }, kind, undefined);
    expect(body).toMatchObject({ prompt: [1, 2], ...fields });
    for (const key of absent) expect(body).not.toHaveProperty(key);
    // What goes on the wire: the same fields after JSON.
    expect(JSON.parse(JSON.stringify(body))).toMatchObject(fields);
  });

  it('no constraint: none of the fields', () => {
    const body = completionBody(samplingRequest([1, 2]), 'llama.cpp', undefined);
    for (const key of ['json_schema', 'grammar', 'structured_outputs']) expect(body).not.toHaveProperty(key);
  });

  it('a server of unknown kind is refused the constraint (invalid_constraint), never sent it unconstrained', () => {
    const build = () => completionBody({ ...samplingRequest([1, 2]), constraint: { type: 'json_object' } }, 'openai-compatible', undefined);
    let error: unknown;
    try {
      build();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ code: 'invalid_constraint', message: expect.stringMatching(/neither vLLM nor llama-server/) });
  });
});
