/**
 * Readers for untrusted request JSON: each returns the value or throws a 400 naming the field's path.
 * A field's shape is a valibot schema whose messages are the 400's; `checked` runs one on a value and
 * names the first problem's path. A field set to null counts as absent (as OpenAI reads it); a key no
 * reader knows is refused by `onlyKnown`, never ignored.
 */
import * as v from 'valibot';
import { fields, parseFirst, pathText, plainObject } from '../../parse/fields';
import { invalidField, unsupportedField } from '../api-error';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `schema`'s output for `value`, the field at `param`; else a 400 at the first problem: its path below
 * `param` (`deep`), or `param` itself (`field`, for a field that is one value however it is written). */
export function checked<S extends v.GenericSchema>(schema: S, value: unknown, param: string, name: 'deep' | 'field' = 'deep'): v.InferOutput<S> {
  const result = parseFirst(schema, value);
  if (result.ok) return result.value;
  const at = name === 'deep' ? pathText(param, result.issue.path) : param;
  if (result.issue.expected === UNSUPPORTED) throw unsupportedField(at, result.issue.message);
  throw invalidField(at, result.issue.message);
}

/** What `knownKeysOnly`'s issue expects: `checked` answers it as an unsupported field, not an invalid value. */
const UNSUPPORTED = 'a supported field';

/** Refuses `input[key]` as unsupported: `why` is the 400's reason, `refusal(input)` names the key or gives none. */
function unsupportedKey(refusal: (input: JsonObject) => { key: string; why: string } | undefined) {
  return v.rawCheck<JsonObject>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const input = dataset.value;
    const found = refusal(input);
    if (found) addIssue({ message: found.why, expected: UNSUPPORTED, path: [{ type: 'object', origin: 'value', input, key: found.key, value: input[found.key] }] });
  });
}

/** Refuses the first key not listed, named by its path, as `onlyKnown` does: put it before the object's own schema
 * so that an unknown field is refused before any other problem of the object. */
export function knownKeysOnly(known: readonly string[], why = 'this server does not implement it') {
  return unsupportedKey((input) => {
    const key = Object.keys(input).find((k) => !known.includes(k));
    return key === undefined ? undefined : { key, why };
  });
}

export const jsonObject = plainObject<JsonObject>('expected an object');

/** An object with only the `known` keys (refused first, as unsupported) and then `entries` checked in order. */
export function knownObject<const E extends v.ObjectEntries>(entries: E) {
  return v.pipe(jsonObject, knownKeysOnly(Object.keys(entries)), fields(entries, 'expected an object'));
}

export function objectAt(value: unknown, param: string): JsonObject {
  return checked(jsonObject, value, param);
}

/** Refuses every key not listed. `why` says what the surface supports instead. */
export function onlyKnown(obj: JsonObject, known: readonly string[], at: string, why = 'this server does not implement it'): void {
  for (const key of Object.keys(obj)) {
    if (!known.includes(key)) throw unsupportedField(at ? `${at}.${key}` : key, why);
  }
}

const path = (at: string, key: string) => (at ? `${at}.${key}` : key);

export function present(obj: JsonObject, key: string): boolean {
  return obj[key] !== undefined && obj[key] !== null;
}

/** `schema`'s output for `obj[key]`, or undefined when the field is absent or null. */
export function optionalField<S extends v.GenericSchema>(obj: JsonObject, key: string, schema: S, at = ''): v.InferOutput<S> | undefined {
  return present(obj, key) ? checked(schema, obj[key], path(at, key)) : undefined;
}

export const requiredText = v.string((issue) => (issue.input === undefined || issue.input === null ? 'missing' : 'expected a string'));

export function requiredString(obj: JsonObject, key: string, at = ''): string {
  return checked(requiredText, obj[key], path(at, key));
}

export const trueOrFalse = v.boolean('expected true or false');

export function optionalBoolean(obj: JsonObject, key: string, at = ''): boolean | undefined {
  return optionalField(obj, key, trueOrFalse, at);
}

export interface NumberRule {
  min: number;
  max: number;
  /** The minimum itself is excluded (top_p > 0). */
  minExclusive?: boolean;
  integer?: boolean;
}

/** A finite number (an integer where the rule says so) within the rule's range; the message names the range. */
export function numberIn(rule: NumberRule) {
  const low = rule.minExclusive ? `above ${rule.min}` : `at least ${rule.min}`;
  const expected = `expected ${rule.integer ? 'an integer' : 'a number'} ${low} and at most ${rule.max}`;
  return v.pipe(
    v.number(expected),
    v.check((n) => Number.isFinite(n) && (!rule.integer || Number.isInteger(n)), expected),
    v.check((n) => n >= rule.min && !(rule.minExclusive && n === rule.min) && n <= rule.max, (issue) => `${expected}, got ${String(issue.input)}`),
  );
}

export function optionalNumber(obj: JsonObject, key: string, rule: NumberRule, at = ''): number | undefined {
  return optionalField(obj, key, numberIn(rule), at);
}

/** A field accepted only with its default value (so a request relying on another value is refused, not misread). */
export function defaultOnly(obj: JsonObject, key: string, allowed: unknown, why: string, at = ''): void {
  if (present(obj, key) && obj[key] !== allowed) throw unsupportedField(path(at, key), `only ${JSON.stringify(allowed)} is supported (${why})`);
}

/** A content part: its type is checked first (a part that is not text is unsupported), then its keys, then its text. */
const textPart = v.pipe(
  jsonObject,
  unsupportedKey((part) => (part.type === 'text' ? undefined : { key: 'type', why: `only text parts are supported (got ${JSON.stringify(part.type)}): Llama 3.1 reads text` })),
  knownKeysOnly(['type', 'text']),
  fields({ text: requiredText }, 'expected an object'),
  v.transform((part) => part.text),
);

const textParts = v.array(textPart, 'expected a string or an array of text parts');

/** A string, or an array of `{"type": "text", "text"}` parts (joined); any other part is refused. */
export function textContent(value: unknown, param: string): string {
  return typeof value === 'string' ? value : checked(textParts, value, param).join('');
}
