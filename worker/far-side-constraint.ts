/**
 * What a SamplingBackend is asked to enforce of a request's constraint. The far side enforces a
 * constraint on the whole reply (a JSON schema, any JSON object, a grammar); the engine adds the bans
 * that make "then eot" hold there too (the tag, eom and end_of_text are never sampled), since a far-side
 * grammar lets any terminator end a finished reply. A `tool_calls` constraint is not sent: no server
 * we speak to can enforce it exactly (see README, "constraints on an engine server"), so such a request
 * keeps its forced openings and the reply is parsed as always.
 *
 * Invariant: a constraint that reaches a backend has the shape its type says (it arrives as data);
 * anything else, or a whole-reply constraint after a forced continuation (the far side would start
 * its grammar after the forced ids, not at the reply's start), is EngineError `invalid_constraint`
 * before anything is sent. Pure.
 */
import type { Constraint, ReplyConstraint } from '../src/engine/contract';
import { EngineError } from '../src/engine/errors';
import { END_OF_TEXT, EOM, PYTHON_TAG } from '../src/format/special-tokens';

export interface FarSideConstraint {
  /** Sent to the far side; absent when nothing is. */
  constraint?: ReplyConstraint;
  /** Ids banned for this request on top of the engine's own. */
  bans: number[];
}

const REPLY_BANS = [PYTHON_TAG, EOM, END_OF_TEXT];

export function farSideConstraint(constraint: Constraint | undefined, forced: readonly number[]): FarSideConstraint {
  if (constraint === undefined) return { bans: [] };
  const refuse = (why: string) => new EngineError('invalid_constraint', why);
  if (typeof constraint !== 'object' || constraint === null) throw refuse('a constraint must be an object with a type');
  switch (constraint.type) {
    case 'tool_calls':
      return { bans: [] };
    case 'json_object':
      break;
    case 'json_schema': {
      const { schema } = constraint;
      if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) throw refuse('a JSON schema must be an object or a boolean');
      break;
    }
    case 'grammar':
      if (typeof constraint.grammar !== 'string' || constraint.grammar.trim() === '') throw refuse('a grammar must be a non-empty string with a root rule');
      break;
    default:
      throw refuse(`unknown constraint type ${JSON.stringify((constraint as { type?: unknown }).type)}`);
  }
  if (forced.length > 0) throw refuse('an engine server cannot follow a constraint on the whole reply after a forced continuation: send one or the other');
  return { constraint, bans: REPLY_BANS };
}
