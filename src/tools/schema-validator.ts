/**
 * JSON-schema checking of tool arguments with ajv: a schema is compiled once, and a failed check is
 * described in plain words keyed by argument path (`parameters.city: must be string`).
 *
 * Invariants: compiling never touches shared state a later schema could collide with (no `$id`
 * registry); an invalid schema throws `SchemaCompileError` at compile time, never at check time;
 * `format` is an annotation (not enforced: no format plugin ships here), every other keyword is
 * enforced, and an unknown keyword is a compile error (a typo like "properites" would otherwise
 * silently check nothing).
 */
import Ajv, { type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019.js';
import Ajv2020 from 'ajv/dist/2020.js';

export class SchemaCompileError extends Error {
  override readonly name = 'SchemaCompileError';
}

/** Checks a value; returns [] when it conforms, else one plain-words line per problem. */
export type ArgumentChecker = (value: unknown) => string[];

/** At most this many problems are listed; the rest are counted. */
export const MAX_LISTED_PROBLEMS = 8;

const OPTIONS: Options = {
  allErrors: true,
  strict: true,
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  validateFormats: false,
  addUsedSchema: false,
  logger: false,
};

type AjvLike = { compile(schema: object): ValidateFunction };
const instances = new Map<string, AjvLike>();

function ajvFor(schema: Record<string, unknown>): AjvLike {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  const kind = dialect.includes('2020-12') ? '2020' : dialect.includes('2019-09') ? '2019' : dialect === '' || /draft-0[67]/.test(dialect) ? '07' : undefined;
  if (kind === undefined) throw new SchemaCompileError(`unsupported "$schema" ${JSON.stringify(dialect)}: use draft-07, 2019-09 or 2020-12`);
  let ajv = instances.get(kind);
  if (!ajv) {
    ajv = kind === '2020' ? new Ajv2020(OPTIONS) : kind === '2019' ? new Ajv2019(OPTIONS) : new Ajv(OPTIONS);
    instances.set(kind, ajv);
  }
  return ajv;
}

/**
 * Compiles `schema` (draft-07 unless its `$schema` names 2019-09 or 2020-12). `root` names the value
 * in messages. Throws SchemaCompileError with ajv's reason when the schema is invalid.
 */
export function compileChecker(schema: Record<string, unknown>, root = 'parameters'): ArgumentChecker {
  let validate: ValidateFunction;
  try {
    validate = ajvFor(schema).compile(schema);
  } catch (cause) {
    if (cause instanceof SchemaCompileError) throw cause;
    // ajv calls the schema under test "data" in meta-schema errors: name it as the host wrote it.
    const reason = (cause instanceof Error ? cause.message : String(cause)).replace(/\bdata(?=\/)/g, root);
    const hint = cause instanceof EvalError || /unsafe-eval|Content Security Policy/i.test(reason)
      ? " (ajv compiles schemas to code: the page's Content Security Policy must allow 'unsafe-eval')"
      : '';
    throw new SchemaCompileError(`${reason}${hint}`, { cause });
  }
  return (value) => (validate(value) ? [] : describeErrors(validate.errors ?? [], root));
}

/** ajv's errors as `path: problem` lines, duplicates dropped, at most MAX_LISTED_PROBLEMS (+ a count). */
export function describeErrors(errors: readonly ErrorObject[], root = 'parameters'): string[] {
  const lines: string[] = [];
  for (const e of errors) {
    const line = describeError(e, root);
    if (!lines.includes(line)) lines.push(line);
  }
  if (lines.length <= MAX_LISTED_PROBLEMS) return lines;
  const rest = lines.length - MAX_LISTED_PROBLEMS;
  return [...lines.slice(0, MAX_LISTED_PROBLEMS), `and ${rest} more problem${rest === 1 ? '' : 's'}`];
}

function describeError(e: ErrorObject, root: string): string {
  const at = pathOf(root, e.instancePath);
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${childPath(at, String(params.missingProperty))}: is required`;
    case 'additionalProperties':
      return `${at}: has an unexpected property ${JSON.stringify(params.additionalProperty)}`;
    case 'enum':
      return `${at}: must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${at}: must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return `${at}: ${e.message ?? `fails "${e.keyword}"`}`;
  }
}

/** `/a/0/b~1c` → `parameters.a[0]["b/c"]`. */
function pathOf(root: string, pointer: string): string {
  if (pointer === '') return root;
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce(childPath, root);
}

function childPath(parent: string, key: string): string {
  if (/^\d+$/.test(key)) return `${parent}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}
