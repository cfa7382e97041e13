/**
 * The JSON Schema the grammar engine (XGrammar) enforces while generating, measured against the
 * official JSON Schema Test Suite (src/api/schema-coverage.test.ts): a schema outside it is refused
 * up front with a 400 naming the keyword and where, rather than answered with JSON that might violate
 * it. Outside it:
 * - keywords XGrammar ignores: `allOf`, `oneOf` (its exclusivity), `not`, conditionals, dependencies,
 *   `contains`, `uniqueItems`, `multipleOf`, `propertyNames`, `patternProperties`, `unevaluated*`;
 * - a value keyword (`minLength`, `pattern`, `minimum`, `maxItems`, `maxProperties`…) in a schema that
 *   does not declare its `type`: XGrammar applies those only to the type declared;
 * - draft-4's boolean `exclusiveMinimum`/`exclusiveMaximum`; a `$ref` to another document;
 * - keywords beside `anyOf` other than annotations (they would be ignored);
 * - `pattern` beside `minLength`, `maxLength` or `format` (XGrammar keeps the pattern only);
 * - a `format` XGrammar does not know (it would take any string).
 * Numeric bounds (`minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`) are accepted but only
 * partly enforced: the finished value is validated against the schema (a JSON reply in
 * response-format.ts, a call's arguments in reply-calls.ts), and a violation is an error, never a result.
 */
import { invalidField } from './api-error';
import type { JsonObject } from './openai/fields';

export const UNENFORCED_KEYWORDS: readonly string[] = [
  'allOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentSchemas', 'dependentRequired', 'dependencies', 'contains', 'minContains', 'maxContains',
  'uniqueItems', 'multipleOf', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'patternProperties', '$dynamicRef', '$recursiveRef',
];

/** Value keywords and the type they apply to. */
const TYPED_KEYWORDS: Readonly<Record<string, string>> = {
  minLength: 'string', maxLength: 'string', pattern: 'string', format: 'string',
  minimum: 'number', maximum: 'number', exclusiveMinimum: 'number', exclusiveMaximum: 'number',
  minItems: 'array', maxItems: 'array', minProperties: 'object', maxProperties: 'object',
};

/** Bounds XGrammar does not always hold: validated once the value is finished. */
export const VALIDATED_KEYWORDS: readonly string[] = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];

/** String formats XGrammar enforces (each checked with an invalid value). */
const ENFORCED_FORMATS = new Set([
  'email', 'date', 'time', 'date-time', 'duration', 'ipv4', 'ipv6', 'hostname', 'uuid', 'uri', 'uri-reference', 'uri-template', 'json-pointer', 'relative-json-pointer',
]);

const ANNOTATIONS = new Set(['title', 'description', '$comment', 'default', 'examples', '$schema', '$id', 'definitions', '$defs', 'anyOf']);

/** Keywords whose value is a map from names to schemas. */
const SCHEMA_MAPS = new Set(['properties', '$defs', 'definitions']);
/** Keywords whose value is a schema, or a list of schemas. */
const SCHEMA_VALUES = new Set(['items', 'additionalItems', 'additionalProperties', 'anyOf', 'prefixItems']);

/** The schema, when it is all enforced; else a 400 (param `at`) naming the first thing that is not, and where. */
export function checkSchemaCoverage(schema: JsonObject, at: string): JsonObject {
  const problem = findProblem(schema, '');
  if (problem) throw invalidField(at, `${problem}: it is not enforced while generating, so a reply could violate it`);
  return schema;
}

function findProblem(schema: unknown, path: string): string | null {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return null;
  const s = schema as JsonObject;
  const where = path || '/';
  for (const key of Object.keys(s)) {
    if (UNENFORCED_KEYWORDS.includes(key)) return `the keyword "${key}" (at ${where})`;
    const type = TYPED_KEYWORDS[key];
    if (type && !declares(s.type, type)) return `"${key}" without "type": "${type === 'number' ? 'number" or "integer' : type}" beside it (at ${where})`;
    if ((key === 'exclusiveMinimum' || key === 'exclusiveMaximum') && typeof s[key] === 'boolean') return `a boolean "${key}" (draft 4; give the bound as its value) (at ${where})`;
  }
  if (typeof s.format === 'string' && !ENFORCED_FORMATS.has(s.format)) return `the format "${s.format}" (at ${where})`;
  const beside = ['minLength', 'maxLength', 'format'].find((k) => k in s);
  if ('pattern' in s && beside) return `"pattern" beside "${beside}" (at ${where})`;
  if (typeof s.$ref === 'string' && !s.$ref.startsWith('#')) return `the $ref "${s.$ref}" to another document (at ${where})`;
  if ('anyOf' in s) {
    const other = Object.keys(s).find((k) => !ANNOTATIONS.has(k));
    if (other) return `"${other}" beside "anyOf" (move it into each branch) (at ${where})`;
  }
  for (const [key, value] of Object.entries(s)) {
    if (SCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null) {
      for (const [name, child] of Object.entries(value)) {
        const found = findProblem(child, `${path}/${key}/${name}`);
        if (found) return found;
      }
    } else if (SCHEMA_VALUES.has(key)) {
      const children = Array.isArray(value) ? value : [value];
      for (const [i, child] of children.entries()) {
        const found = findProblem(child, `${path}/${key}${Array.isArray(value) ? `/${i}` : ''}`);
        if (found) return found;
      }
    }
  }
  return null;
}

function declares(type: unknown, wanted: string): boolean {
  const types = Array.isArray(type) ? type : [type];
  return types.includes(wanted) || (wanted === 'number' && types.includes('integer'));
}
