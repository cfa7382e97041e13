/**
 * Where a JSON schema holds subschemas. `forEachSchemaObject` visits every object subschema (root
 * first, then depth-first) reached through applicator and definition keywords of draft-07, 2019-09 or
 * 2020-12; values that are data (`enum`, `const`, `default`, `examples`, `properties`' names…) and
 * annotations holding schemas (`contentSchema`) are not entered. A visitor may change the node's
 * non-applicator keywords (it is visited before its children are listed).
 */

export type SchemaObject = Record<string, unknown>;

/** Keywords whose value is one subschema. `items` may also be a list (draft-07 and 2019-09 tuples). */
const ONE = ['additionalItems', 'additionalProperties', 'contains', 'else', 'if', 'items', 'not', 'propertyNames', 'then', 'unevaluatedItems', 'unevaluatedProperties'];
/** Keywords whose value is a list of subschemas. */
const LIST = ['allOf', 'anyOf', 'items', 'oneOf', 'prefixItems'];
/** Keywords whose value maps names to subschemas (`dependencies` also maps names to lists of names). */
const MAP = ['$defs', 'definitions', 'dependencies', 'dependentSchemas', 'patternProperties', 'properties'];

export function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function forEachSchemaObject(schema: unknown, visit: (node: SchemaObject) => void): void {
  if (!isSchemaObject(schema)) return;
  visit(schema);
  for (const child of subschemas(schema)) forEachSchemaObject(child, visit);
}

function subschemas(node: SchemaObject): unknown[] {
  const found: unknown[] = [];
  for (const key of ONE) if (isSchemaObject(node[key])) found.push(node[key]);
  for (const key of LIST) if (Array.isArray(node[key])) found.push(...(node[key] as unknown[]));
  for (const key of MAP) if (isSchemaObject(node[key])) found.push(...Object.values(node[key]));
  return found;
}
