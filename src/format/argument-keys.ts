/**
 * Argument keys no tool is given. `__proto__`, `constructor` and `prototype` change what a JavaScript
 * object is when a tool merges its arguments into another object (`Object.assign`, a spread into a
 * class instance, a deep merge): a model-chosen `{"__proto__": {"isAdmin": true}}` would hand the
 * host's object a new prototype. A call carrying one at any depth is refused as an invalid call,
 * with an error the model reads (`forbiddenKeyError`).
 */

export const FORBIDDEN_ARGUMENT_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype'];

export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN_ARGUMENT_KEYS.includes(key);
}

const ERROR_START = 'argument key ';

/** The model-facing reason a call with `key` (at `path`, e.g. `options.__proto__`) is refused. */
export function forbiddenKeyError(path: string): string {
  return `${ERROR_START}${JSON.stringify(path)} is not allowed: keys named __proto__, constructor or prototype are refused at any depth (rename the argument)`;
}

/** Whether a parse error is forbiddenKeyError's (kept as the reason instead of a generic one). */
export function isForbiddenKeyError(error: string): boolean {
  return error.startsWith(ERROR_START);
}

/** The path of the first forbidden own key anywhere in `value` (objects and arrays), or null. */
export function findForbiddenKey(value: unknown, path = ''): string | null {
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findForbiddenKey(item, `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    const at = path ? `${path}.${key}` : key;
    if (isForbiddenKey(key)) return at;
    const found = findForbiddenKey((value as Record<string, unknown>)[key], at);
    if (found) return found;
  }
  return null;
}
