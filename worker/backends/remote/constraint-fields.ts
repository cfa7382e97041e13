/**
 * A whole-reply constraint in the `/v1/completions` fields of the server that enforces it:
 * - llama-server: `json_schema` (an object; it converts it to GBNF itself) or `grammar` (GBNF text);
 * - vLLM (0.10.2 or later): `structured_outputs: {json}` or `structured_outputs: {grammar}` (its
 *   grammar backends read EBNF in XGrammar's dialect).
 * Any JSON object is the schema `{"type": "object"}` on both. A server of unknown kind has no known
 * field that enforces a constraint: the request is refused (EngineError `invalid_constraint`) rather
 * than sent unconstrained. Pure.
 */
import type { JsonSchema, ReplyConstraint } from '../../../src/engine/contract';
import { EngineError } from '../../../src/engine/errors';
import type { ServerKind } from '../../../src/engine/remote/remote-config';

export function constraintFields(constraint: ReplyConstraint, kind: ServerKind): Record<string, unknown> {
  // vLLM's own names; llama-server calls the schema json_schema.
  const what: { json: JsonSchema } | { grammar: string } =
    constraint.type === 'grammar' ? { grammar: constraint.grammar } : { json: constraint.type === 'json_object' ? { type: 'object' } : constraint.schema };
  if (kind === 'vllm') return { structured_outputs: what };
  if (kind === 'llama.cpp') return 'json' in what ? { json_schema: what.json } : what;
  throw new EngineError(
    'invalid_constraint',
    'this engine server is neither vLLM nor llama-server, so no field is known that makes it enforce a constraint: the request is not sent unconstrained',
  );
}
