import { describe, expect, it } from 'vitest';
import type { Constraint } from '../src/engine/contract';
import { END_OF_TEXT, EOM, PYTHON_TAG } from '../src/format/special-tokens';
import { farSideConstraint } from './far-side-constraint';

const REPLY_BANS = [PYTHON_TAG, EOM, END_OF_TEXT];

describe('farSideConstraint', () => {
  const sent: Record<string, Constraint> = {
    'a JSON schema': { type: 'json_schema', schema: { type: 'object', properties: { a: { type: 'integer' } } } },
    'a boolean schema (the server judges it)': { type: 'json_schema', schema: true },
    'any JSON object': { type: 'json_object' },
    'a grammar': { type: 'grammar', grammar: 'root ::= "a"' },
  };
  it.each(Object.entries(sent))('%s is sent, with the tag, eom and end_of_text banned (the reply ends in eot)', (_, constraint) => {
    expect(farSideConstraint(constraint, [])).toEqual({ constraint, bans: REPLY_BANS });
  });

  it('tool calls are not sent and ban nothing more: the forced openings and the parser do that work', () => {
    const c: Constraint = { type: 'tool_calls', mode: 'required', tools: [{ name: 'f', parameters: {} }], builtins: [] };
    expect(farSideConstraint(c, [90, 1])).toEqual({ bans: [] });
  });

  it('no constraint: nothing', () => {
    expect(farSideConstraint(undefined, [5])).toEqual({ bans: [] });
  });

  const refused: Record<string, { constraint: unknown; forced?: number[]; why: RegExp }> = {
    'an empty grammar (llama-server would run it unconstrained)': { constraint: { type: 'grammar', grammar: '  ' }, why: /non-empty string/ },
    'a grammar that is not a string': { constraint: { type: 'grammar', grammar: 3 }, why: /non-empty string/ },
    'a schema that is an array': { constraint: { type: 'json_schema', schema: [] }, why: /object or a boolean/ },
    'a schema that is missing': { constraint: { type: 'json_schema' }, why: /object or a boolean/ },
    'an unknown type': { constraint: { type: 'regex', regex: 'a+' }, why: /unknown constraint type "regex"/ },
    'not an object': { constraint: 'json', why: /must be an object/ },
    'a whole-reply constraint after a forced continuation': { constraint: { type: 'json_object' }, forced: [90], why: /after a forced continuation/ },
  };
  it.each(Object.entries(refused))('refuses %s: invalid_constraint', (_, { constraint, forced, why }) => {
    let error: unknown;
    try {
      farSideConstraint(constraint as Constraint, forced ?? []);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ name: 'EngineError', code: 'invalid_constraint', message: expect.stringMatching(why) });
  });
});
