/**
 * JSON-schema checking of tool arguments: a schema is compiled once, and a failed check is
 * described in plain words keyed by argument path (`parameters.city: must be string`).
 *
 * Invariants: nothing on the path evaluates code (no eval, no `new Function`): the schema is
 * checked against its dialect's meta-schema and the value against the schema by an interpreting
 * validator (@cfworker/json-schema), so custom tools work on pages whose Content-Security-Policy
 * forbids 'unsafe-eval'. Compiling never touches shared state a later schema could collide with
 * (each schema resolves `$id`s and `$ref`s in its own lookup); an invalid schema throws
 * `SchemaCompileError` at compile time, never at check time; `format` is an annotation (not
 * enforced), every other keyword is enforced, and an unknown keyword is a compile error (a typo like
 * "properites" would otherwise silently check nothing).
 */
import { dereference, validate, type Schema } from '@cfworker/json-schema';
import { dialectOf, type Dialect, type Resolved } from './schema-dialects';
import { schemaErrors, type SchemaError } from './schema-errors';
import { strictProblem } from './schema-strict';
import { forEachSchemaObject } from './schema-walk';

export class SchemaCompileError extends Error {
  override readonly name = 'SchemaCompileError';
}

/** Checks a value; returns [] when it conforms, else one plain-words line per problem. */
export type ArgumentChecker = (value: unknown) => string[];

/** At most this many problems are listed; the rest are counted. */
export const MAX_LISTED_PROBLEMS = 8;

/**
 * Compiles `schema` (draft-07 unless its `$schema` names 2019-09 or 2020-12). `root` names the value
 * in messages. Throws SchemaCompileError saying why when the schema is invalid.
 */
export function compileChecker(schema: Record<string, unknown>, root = 'parameters'): ArgumentChecker {
  const dialect = dialectOf(schema);
  if (!dialect) throw new SchemaCompileError(`unsupported "$schema" ${JSON.stringify(schema.$schema)}: use draft-07, 2019-09 or 2020-12`);
  const invalid = metaSchemaProblem(schema, dialect.meta(), root);
  if (invalid !== undefined) throw new SchemaCompileError(invalid);
  const strict = strictProblem(schema, dialect);
  if (strict !== undefined) throw new SchemaCompileError(strict);
  const checked = attempt(() => forChecking(schema, dialect));
  return (value) => {
    let result;
    try {
      result = validate(value, checked.schema, checked.draft, checked.lookup, false);
    } catch (error) {
      return [`${root}: cannot be checked (${error instanceof Error ? error.message : String(error)})`];
    }
    return result.valid ? [] : describeErrors(schemaErrors(result.errors, checked, value), root);
  };
}

/** `schema is invalid: <root>/<path> <problem>, …` when the dialect's meta-schema refuses `schema`. */
function metaSchemaProblem(schema: Record<string, unknown>, meta: Resolved, root: string): string | undefined {
  const result = attempt(() => validate(schema, meta.schema, meta.draft, meta.lookup, false), 'schema is not plain JSON: ');
  if (result.valid) return undefined;
  const lines = schemaErrors(result.errors, meta, schema).map((e) => `${[root, ...e.at.map(escape)].join('/')} ${e.message}`);
  return `schema is invalid: ${listed(lines).join(', ')}`;
}

/** Runs a compile step; what it throws becomes a SchemaCompileError. */
function attempt<T>(step: () => T, prefix = ''): T {
  try {
    return step();
  } catch (cause) {
    throw new SchemaCompileError(`${prefix}${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * A copy of `schema` as the validator applies it: `format` dropped (an annotation here), OpenAPI's
 * `nullable: true` folded into `type`, a `$dynamicAnchor` (no `$dynamicRef` gets here) read as the
 * plain `$anchor` it then is; every `$ref` resolved now, so none fails at check time.
 */
function forChecking(schema: Record<string, unknown>, dialect: Dialect): Resolved {
  const copy = structuredClone(schema) as Schema;
  forEachSchemaObject(copy, (node) => {
    delete node.format;
    if (node.nullable === true) node.type = [...new Set([node.type, 'null'].flat())];
    delete node.nullable;
    if (typeof node.$dynamicAnchor === 'string') node.$anchor ??= node.$dynamicAnchor;
  });
  const lookup = dereference(copy);
  for (const node of Object.values(lookup)) {
    if (typeof node === 'object' && node.__absolute_ref__ !== undefined && lookup[node.__absolute_ref__] === undefined) {
      throw new Error(`can't resolve reference ${node.$ref}`);
    }
  }
  return { schema: copy, lookup, draft: dialect.draft };
}

/** Errors as `path: problem` lines, duplicates dropped, at most MAX_LISTED_PROBLEMS (+ a count). */
function describeErrors(errors: readonly SchemaError[], root: string): string[] {
  return listed(errors.map((e) => describeError(e, root)));
}

function listed(lines: readonly string[]): string[] {
  const unique = [...new Set(lines)];
  if (unique.length <= MAX_LISTED_PROBLEMS) return unique;
  const rest = unique.length - MAX_LISTED_PROBLEMS;
  return [...unique.slice(0, MAX_LISTED_PROBLEMS), `and ${rest} more problem${rest === 1 ? '' : 's'}`];
}

function describeError(e: SchemaError, root: string): string {
  const at = e.at.reduce(childPath, root);
  switch (e.keyword) {
    case 'required':
      return `${childPath(at, e.params.missingProperty ?? '')}: is required`;
    case 'additionalProperties':
      return `${at}: has an unexpected property ${JSON.stringify(e.params.additionalProperty)}`;
    case 'enum':
      return `${at}: must be one of ${(e.params.allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${at}: must be ${JSON.stringify(e.params.allowedValue)}`;
    default:
      return `${at}: ${e.message}`;
  }
}

/** `['a', '0', 'b/c']` under `parameters` → `parameters.a[0]["b/c"]`. */
function childPath(parent: string, key: string): string {
  if (/^\d+$/.test(key)) return `${parent}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

/** A JSON-pointer segment: schema paths in compile errors are pointers under `root`. */
function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
