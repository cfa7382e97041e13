/**
 * JSON Schema keywords the grammar engine (XGrammar) does not enforce while generating: a schema that
 * uses one is refused up front with a 400 naming it, rather than answered with JSON that might violate
 * it. The table is in the README ("Constrained decoding"); a finished JSON reply is also validated
 * against its schema (response-format.ts).
 */
import { invalidField } from './api-error';
import type { JsonObject } from './openai/fields';

export const UNENFORCED_KEYWORDS: readonly string[] = [
  'allOf', 'not', 'if', 'then', 'else', 'dependentSchemas', 'dependentRequired', 'dependencies', 'contains', 'minContains', 'maxContains',
  'uniqueItems', 'multipleOf', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'patternProperties', '$dynamicRef', '$recursiveRef',
];

/** The schema, when every keyword in it is enforced; else a 400 (param `at`) naming the first that is not and where. */
export function checkSchemaCoverage(schema: JsonObject, at: string): JsonObject {
  const found = findUnenforced(schema, '');
  if (found) throw invalidField(at, `the keyword "${found.keyword}" (at ${found.path || '/'}) is not enforced while generating, so a reply could violate it: leave it out`);
  return schema;
}

function findUnenforced(value: unknown, path: string): { keyword: string; path: string } | null {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findUnenforced(item, `${path}/${i}`);
      if (found) return found;
    }
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, child] of Object.entries(value)) {
    if (UNENFORCED_KEYWORDS.includes(key) && !isSchemaPropertyName(path)) return { keyword: key, path };
    const found = findUnenforced(child, `${path}/${key}`);
    if (found) return found;
  }
  return null;
}

/** Inside `properties` (or `$defs`) the keys are names, not keywords: a property may be called "not". */
function isSchemaPropertyName(path: string): boolean {
  return /\/(properties|\$defs|definitions)$/.test(path);
}
