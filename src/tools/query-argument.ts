/**
 * The one argument the built-in tools take: `{query: string}`. Llama 3.1 calls them as
 * `brave_search.call(query="...")` / `wolfram_alpha.call(query="...")`, so the name is fixed.
 */
import { ToolError } from './tool';

/** A fresh `{type: object, properties: {query: string}, required: [query]}` schema. */
export function queryParameters(description: string): Record<string, unknown> {
  return {
    type: 'object',
    properties: { query: { type: 'string', description } },
    required: ['query'],
  };
}

/** The `query` argument, trimmed; a missing, non-string or blank one is a ToolError the model can fix. */
export function queryArgument(args: Record<string, unknown>, tool: string): string {
  const query = args.query;
  if (typeof query !== 'string' || query.trim() === '') {
    throw new ToolError(`${tool} needs a non-empty "query" string`, { got: query === undefined ? 'nothing' : typeof query });
  }
  return query.trim();
}
