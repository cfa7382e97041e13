/**
 * Readers for untrusted request JSON: each returns the value or throws a 400 naming the field's path.
 * A field set to null counts as absent (as OpenAI reads it); a key no reader knows is refused by
 * `onlyKnown`, never ignored.
 */
import { invalidField, unsupportedField } from '../api-error';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function objectAt(value: unknown, param: string): JsonObject {
  if (!isObject(value)) throw invalidField(param, 'expected an object');
  return value;
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

export function requiredString(obj: JsonObject, key: string, at = ''): string {
  const v = obj[key];
  if (typeof v !== 'string') throw invalidField(path(at, key), present(obj, key) ? 'expected a string' : 'missing');
  return v;
}

export function optionalBoolean(obj: JsonObject, key: string, at = ''): boolean | undefined {
  if (!present(obj, key)) return undefined;
  if (typeof obj[key] !== 'boolean') throw invalidField(path(at, key), 'expected true or false');
  return obj[key] as boolean;
}

export interface NumberRule {
  min: number;
  max: number;
  /** The minimum itself is excluded (top_p > 0). */
  minExclusive?: boolean;
  integer?: boolean;
}

export function optionalNumber(obj: JsonObject, key: string, rule: NumberRule, at = ''): number | undefined {
  if (!present(obj, key)) return undefined;
  const v = obj[key];
  const low = rule.minExclusive ? `above ${rule.min}` : `at least ${rule.min}`;
  const range = `${rule.integer ? 'an integer' : 'a number'} ${low} and at most ${rule.max}`;
  if (typeof v !== 'number' || !Number.isFinite(v) || (rule.integer && !Number.isInteger(v))) throw invalidField(path(at, key), `expected ${range}`);
  if (v < rule.min || (rule.minExclusive && v === rule.min) || v > rule.max) throw invalidField(path(at, key), `expected ${range}, got ${v}`);
  return v;
}

/** A field accepted only with its default value (so a request relying on another value is refused, not misread). */
export function defaultOnly(obj: JsonObject, key: string, allowed: unknown, why: string, at = ''): void {
  if (present(obj, key) && obj[key] !== allowed) throw unsupportedField(path(at, key), `only ${JSON.stringify(allowed)} is supported (${why})`);
}

/** A string, or an array of `{"type": "text", "text"}` parts (joined); any other part is refused. */
export function textContent(value: unknown, param: string): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) throw invalidField(param, 'expected a string or an array of text parts');
  return value
    .map((part, i) => {
      const p = objectAt(part, `${param}[${i}]`);
      if (p.type !== 'text') throw unsupportedField(`${param}[${i}].type`, `only text parts are supported (got ${JSON.stringify(p.type)}): Llama 3.1 reads text`);
      onlyKnown(p, ['type', 'text'], `${param}[${i}]`);
      return requiredString(p, 'text', `${param}[${i}]`);
    })
    .join('');
}
