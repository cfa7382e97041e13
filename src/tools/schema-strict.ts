/**
 * What a meta-schema cannot see: keywords that would silently check nothing, and patterns that are
 * not regular expressions. `strictProblem` names the first such problem of a schema (which its
 * dialect's meta-schema already accepted), or returns undefined; the wording follows ajv's strict mode.
 */
import type { Dialect } from './schema-dialects';
import { forEachSchemaObject, isSchemaObject, type SchemaObject } from './schema-walk';

/** Keywords a dialect defines but the interpreting validator does not apply. */
const UNSUPPORTED: Record<string, string> = { $dynamicRef: '"$dynamicRef" is not supported: use "$ref"' };

export function strictProblem(schema: SchemaObject, dialect: Dialect): string | undefined {
  let problem: string | undefined;
  forEachSchemaObject(schema, (node) => {
    problem ??= nodeProblem(node, dialect);
  });
  return problem;
}

function nodeProblem(node: SchemaObject, dialect: Dialect): string | undefined {
  for (const key of Object.keys(node)) {
    if (UNSUPPORTED[key] !== undefined) return UNSUPPORTED[key];
    if (!dialect.keywords.has(key)) return `strict mode: unknown keyword: ${JSON.stringify(key)}`;
  }
  if ('if' in node && !('then' in node) && !('else' in node)) return 'strict mode: "if" without "then" and "else" is ignored';
  if ('additionalItems' in node && !Array.isArray(node.items)) return 'strict mode: "additionalItems" is ignored when "items" is not an array of schemas';
  if ('nullable' in node) {
    if (typeof node.nullable !== 'boolean') return '"nullable" must be boolean';
    if (!('type' in node)) return '"nullable" cannot be used without "type"';
  }
  const patterns = [node.pattern, ...(isSchemaObject(node.patternProperties) ? Object.keys(node.patternProperties) : [])];
  for (const pattern of patterns) {
    if (typeof pattern !== 'string') continue;
    try {
      new RegExp(pattern, 'u'); // as the validator compiles it
    } catch (error) {
      return (error as Error).message;
    }
  }
  return undefined;
}
