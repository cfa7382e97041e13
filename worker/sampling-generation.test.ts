/**
 * What the engine hands a SamplingBackend for a constrained request (a fake backend records it): a
 * whole-reply constraint as given, with the tag, eom and end_of_text banned; a tool-calls constraint not
 * at all; and a refusal, before the backend is asked, of what a far side cannot follow.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Constraint, GenerateRequest } from '../src/engine/contract';
import { MODELS } from '../src/engine/models';
import { END_OF_TEXT, EOM, PYTHON_TAG } from '../src/format/special-tokens';
import { FakeSamplingBackend } from '../tests/fakes/fake-backends';
import { Engine } from './engine';

let backend: FakeSamplingBackend;
let engine: Engine;
beforeEach(async () => {
  backend = new FakeSamplingBackend();
  engine = new Engine({ models: MODELS, createBackend: async () => backend, capabilities: async () => ({ webgpu: false, shaderF16: false, adapter: null, limits: null }) });
  await engine.load('tiny-llama');
});

const ask = (constraint: Constraint, extra: Partial<GenerateRequest> = {}) => engine.generate({ tokens: [128000, 9906], sampling: { seed: 7 }, maxTokens: 4, constraint, ...extra });

describe('a constraint on a SamplingBackend', () => {
  const whole: Record<string, Constraint> = {
    'a JSON schema': { type: 'json_schema', schema: { type: 'object' } },
    'any JSON object': { type: 'json_object' },
    'a grammar': { type: 'grammar', grammar: 'root ::= "a"' },
  };
  it.each(Object.entries(whole))('%s is passed on, the tag, eom and end_of_text banned', async (_, constraint) => {
    await ask(constraint);
    const sent = backend.requests.at(-1)!;
    expect(sent.constraint).toEqual(constraint);
    for (const id of [PYTHON_TAG, EOM, END_OF_TEXT]) expect(sent.sampling.logitBias[id]).toBe(-Infinity);
  });

  it('tool calls are not passed on, and the tag and eom stay allowed (the forced openings and the parser do that work)', async () => {
    await ask({ type: 'tool_calls', mode: 'auto', tools: [], builtins: ['brave_search'] });
    const sent = backend.requests.at(-1)!;
    expect(sent).not.toHaveProperty('constraint');
    expect(sent.sampling.logitBias[PYTHON_TAG]).toBeUndefined();
    expect(sent.sampling.logitBias[EOM]).toBeUndefined();
  });

  it('a whole-reply constraint after a forced continuation is refused before the backend is asked', async () => {
    await expect(ask({ type: 'json_object' }, { logitsProcessors: [{ type: 'force', tokens: [90] }] })).rejects.toMatchObject({ name: 'EngineError', code: 'invalid_constraint' });
    expect(backend.requests).toHaveLength(0);
  });

  it('a malformed constraint is refused before the backend is asked', async () => {
    await expect(ask({ type: 'grammar', grammar: '' })).rejects.toMatchObject({ code: 'invalid_constraint' });
    expect(backend.requests).toHaveLength(0);
  });
});
