/**
 * @cfworker/json-schema's output (every failing keyword, wrappers included) as the problems a person
 * needs: one `SchemaError` per failing check, in ajv's words (`must be string`, `must be <= 7`).
 *
 * Invariants: wrapper units (`properties`, `$ref`, `allOf`, `items`…) say nothing of their own and
 * are dropped, the units under them stay; a combinator's own error (`anyOf`, `oneOf`, then/else)
 * follows its branches' errors; a value's own errors come before errors inside it, otherwise the
 * validator's order is kept; a property left out or extra is named in `params`, found in the schema
 * and the value (the validator's text only tells then from else and which items repeat).
 */
import type { OutputUnit } from '@cfworker/json-schema';
import type { Resolved } from './schema-dialects';
import { isSchemaObject } from './schema-walk';

export interface SchemaError {
  keyword: string;
  /** Where in the checked value: JSON pointer segments, unescaped. */
  at: readonly string[];
  message: string;
  params: { missingProperty?: string; additionalProperty?: string; allowedValues?: unknown[]; allowedValue?: unknown };
}

/** Units that only wrap the errors listed after them. */
const WRAPPERS = new Set([
  ...['$ref', '$recursiveRef', 'allOf', 'properties', 'patternProperties', 'additionalProperties', 'unevaluatedProperties'],
  ...['items', 'prefixItems', 'additionalItems', 'unevaluatedItems', 'dependentSchemas'],
]);

/** Units listed under a combinator or `propertyNames`: `after` follows them; `at` relocates them. */
interface Scope {
  under: string;
  after: SchemaError;
  at?: readonly string[];
}

/** `units` from checking `value` against `against` (its lookup resolves the units' `$ref`s). */
export function schemaErrors(units: readonly OutputUnit[], against: Resolved, value: unknown): SchemaError[] {
  const errors: SchemaError[] = [];
  const scopes: Scope[] = [];
  const seen = new Set<string>();
  const once = (key: string) => (seen.has(key) ? false : (seen.add(key), true));
  for (const [i, unit] of units.entries()) {
    while (scopes.length > 0 && !unit.keywordLocation.startsWith(scopes.at(-1)!.under)) errors.push(scopes.pop()!.after);
    const at = scopes.findLast((s) => s.at)?.at ?? pointer(unit.instanceLocation);
    const parent = unit.keywordLocation.replace(/\/[^/]*$/, '');
    const schema = resolve(against, parent);
    const setting = isSchemaObject(schema) ? schema[unit.keyword] : undefined;
    const target = valueAt(value, at);
    const make = (message: string, params: SchemaError['params'] = {}): SchemaError => ({ keyword: unit.keyword, at, message, params });
    switch (unit.keyword) {
      case 'false':
        errors.push(falseSchemaError(unit, units[i - 1], against) ?? make('boolean schema is false'));
        break;
      case 'anyOf':
      case 'oneOf':
        scopes.push({ under: `${unit.keywordLocation}/`, after: make(unit.keyword === 'anyOf' ? 'must match a schema in anyOf' : 'must match exactly one schema in oneOf') });
        break;
      case 'if': {
        const branch = /"else"/.test(unit.error) ? 'else' : 'then';
        scopes.push({ under: `${parent}/${branch}`, after: make(`must match "${branch}" schema`) });
        break;
      }
      case 'propertyNames': // its units check a name: ajv lists them at the object
        scopes.push({ under: `${unit.keywordLocation}/`, after: make('property name must be valid'), at });
        break;
      case 'required':
        for (const key of missing(target, setting)) {
          if (once(`${unit.keywordLocation}\0${unit.instanceLocation}\0${key}`)) errors.push(make(`must have required property '${key}'`, { missingProperty: key }));
        }
        break;
      case 'dependencies':
      case 'dependentRequired':
        for (const [key, needs] of isSchemaObject(setting) && isSchemaObject(target) ? Object.entries(setting) : []) {
          if (!Array.isArray(needs) || !Object.hasOwn(target as object, key)) continue;
          for (const need of missing(target, needs)) {
            const message = `must have property ${need} when property ${key} is present`;
            if (once(`${unit.instanceLocation}\0${message}`)) errors.push(make(message, { missingProperty: need }));
          }
        }
        break;
      case 'enum':
        errors.push(make(MESSAGES.enum!(setting, unit.error), { allowedValues: setting as unknown[] }));
        break;
      case 'const':
        errors.push(make(MESSAGES.const!(setting, unit.error), { allowedValue: setting }));
        break;
      default:
        if (!WRAPPERS.has(unit.keyword)) errors.push(make(MESSAGES[unit.keyword]?.(setting, unit.error) ?? `fails "${unit.keyword}"`));
    }
  }
  while (scopes.length > 0) errors.push(scopes.pop()!.after);
  return parentsFirst(errors);
}

/** A `false` subschema that forbids extra properties or items, as the object's or array's own error. */
function falseSchemaError(unit: OutputUnit, wrapper: OutputUnit | undefined, against: Resolved): SchemaError | undefined {
  const at = pointer(unit.instanceLocation);
  if (!wrapper || wrapper.instanceLocation !== unit.instanceLocation.replace(/\/[^/]*$/, '')) return undefined;
  const parent = at.slice(0, -1);
  switch (wrapper.keyword) {
    case 'additionalProperties':
      return { keyword: 'additionalProperties', at: parent, message: 'must NOT have additional properties', params: { additionalProperty: at.at(-1) } };
    case 'unevaluatedProperties':
      return { keyword: 'unevaluatedProperties', at: parent, message: 'must NOT have unevaluated properties', params: {} };
    case 'propertyNames':
      return { keyword: 'false', at: parent, message: 'boolean schema is false', params: {} };
    case 'items':
    case 'additionalItems': {
      const schema = resolve(against, wrapper.keywordLocation.replace(/\/[^/]*$/, ''));
      const tuple = isSchemaObject(schema) ? [schema.prefixItems, schema.items].find(Array.isArray) : undefined;
      return tuple && { keyword: 'maxItems', at: parent, message: `must NOT have more than ${tuple.length} items`, params: {} };
    }
    default:
      return undefined;
  }
}

/** ajv's words for a failed keyword, from its value in the schema (and the validator's text). */
const MESSAGES: Record<string, (setting: unknown, text: string) => string> = {
  type: (t) => `must be ${[t].flat().join(',')}`,
  enum: () => 'must be equal to one of the allowed values',
  const: () => 'must be equal to constant',
  not: () => 'must NOT be valid',
  minimum: (n) => `must be >= ${String(n)}`,
  maximum: (n) => `must be <= ${String(n)}`,
  exclusiveMinimum: (n) => `must be > ${String(n)}`,
  exclusiveMaximum: (n) => `must be < ${String(n)}`,
  multipleOf: (n) => `must be multiple of ${String(n)}`,
  minLength: (n) => `must NOT have fewer than ${String(n)} characters`,
  maxLength: (n) => `must NOT have more than ${String(n)} characters`,
  pattern: (p) => `must match pattern "${String(p)}"`,
  minItems: (n) => `must NOT have fewer than ${String(n)} items`,
  maxItems: (n) => `must NOT have more than ${String(n)} items`,
  uniqueItems: (_, text) => {
    const [, i, j] = /indexes (\d+) and (\d+)/.exec(text) ?? [];
    return `must NOT have duplicate items${i === undefined ? '' : ` (items ## ${i} and ${j} are identical)`}`;
  },
  minProperties: (n) => `must NOT have fewer than ${String(n)} properties`,
  maxProperties: (n) => `must NOT have more than ${String(n)} properties`,
  contains: () => 'must contain at least 1 valid item(s)',
  minContains: (n) => `must contain at least ${String(n)} valid item(s)`,
  maxContains: (n) => `must contain at most ${String(n)} valid item(s)`,
};

function missing(target: unknown, keys: unknown): string[] {
  if (!isSchemaObject(target) || !Array.isArray(keys)) return [];
  return keys.filter((k): k is string => typeof k === 'string' && !Object.hasOwn(target, k));
}

/** `#/a%20b/0/c~1d` → ['a b', '0', 'c/d'] (the validator percent-encodes pointer segments). */
function pointer(location: string): string[] {
  if (location === '#' || location === '') return [];
  return location
    .slice(2)
    .split('/')
    .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The schema at a keyword location, following `$ref`s as the validator did. */
function resolve(against: Resolved, location: string): unknown {
  let node: unknown = against.schema;
  for (const segment of pointer(location)) {
    if (!isSchemaObject(node) && !Array.isArray(node)) return undefined;
    const at = node as Record<string, unknown>;
    if (segment === '$ref') node = against.lookup[String(at.__absolute_ref__)];
    else if (segment === '$recursiveRef') node = against.lookup[String(at.__absolute_recursive_ref__)];
    else node = at[segment];
  }
  return node;
}

function valueAt(value: unknown, at: readonly string[]): unknown {
  let node = value;
  for (const segment of at) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[segment] : undefined;
  return node;
}

/** Stable: a location's errors before those inside it; siblings in order of first appearance. */
function parentsFirst(errors: SchemaError[]): SchemaError[] {
  const rank = new Map<string, number>();
  const keyed = errors.map((error, index) => ({
    error,
    index,
    key: error.at.map((_, depth) => {
      const prefix = JSON.stringify(error.at.slice(0, depth + 1));
      if (!rank.has(prefix)) rank.set(prefix, rank.size);
      return rank.get(prefix)!;
    }),
  }));
  keyed.sort((a, b) => {
    for (let d = 0; d < Math.min(a.key.length, b.key.length); d++) if (a.key[d] !== b.key[d]) return a.key[d]! - b.key[d]!;
    return a.key.length - b.key.length || a.index - b.index;
  });
  return keyed.map((k) => k.error);
}
