/**
 * Custom tool calls in the forms Llama 3.1 writes them (shared/FORMAT.md "Reading the model's
 * output", rules 3–5), read from a block of text:
 *
 *   block     = item (separator item)*            separator = whitespace, `;` or `<|python_tag|>`
 *   item      = JSON object call | JSON array of object calls | Python list of calls
 *             | `<function=NAME>{...}</function>`
 *   JSON call = {"name": N, "parameters" | "arguments": OBJECT or JSON-string-of-OBJECT}, optionally
 *               with "type": "function"; or {"type": "function", "function": {that}}
 *
 * A JSON item that JSON.parse rejects is read again as a Python literal (single quotes, True/None),
 * which models sometimes write. An object carrying "description" is a tool definition, not a call.
 * Arguments with a `__proto__`, `constructor` or `prototype` key at any depth are a broken call.
 *
 * Invariants: nothing here throws; `calls` means every item was a call and only separators follow
 * the last one; `not-a-call` means the first item is well-formed data of another shape; `broken`
 * covers everything else and says whether the broken part runs to the end of the text.
 */

import { findForbiddenKey, forbiddenKeyError, isForbiddenKeyError } from './argument-keys';
import { PYTHON_TAG_TEXT } from './special-tokens';
import { parseCall, parseValue, readIdentifier, skipSpace } from './python-literal';
import type { ToolCall } from './types';

export type BlockOutcome =
  | { kind: 'calls'; calls: ToolCall[] }
  | { kind: 'not-a-call' }
  | { kind: 'broken'; error: string; name: string; reachesEnd: boolean };

type ItemOutcome =
  | { kind: 'calls'; calls: ToolCall[]; end: number }
  | { kind: 'not-a-call'; end: number }
  | { kind: 'broken'; error: string; name: string; end: number; truncated: boolean }
  | { kind: 'none' };

type Shape =
  | { kind: 'call'; call: ToolCall }
  | { kind: 'not-a-call' }
  | { kind: 'broken'; error: string; name: string };

export const FUNCTION_OPEN = '<function=';
const FUNCTION_CLOSE = '</function>';
const SHAPE_HINT = 'a call is {"name": ..., "parameters": {...}}';
/** The reason given when well-formed data is not a call where a call was expected. */
export const NOT_A_CALL = `not a call: ${SHAPE_HINT}`;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The end of the bracketed value at `i`, matching ()[]{} outside '…' and "…" strings. */
export function scanExtent(src: string, i: number): { end: number; truncated: boolean; inString: boolean } {
  const stack: string[] = [];
  const closer: Record<string, string> = { '{': '}', '[': ']', '(': ')' };
  let quote: string | null = null;
  for (let k = i; k < src.length; k++) {
    const c = src[k]!;
    if (quote) {
      if (c === '\\') k++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (closer[c]) {
      stack.push(closer[c]);
    } else if (c === '}' || c === ']' || c === ')') {
      if (stack.pop() !== c) return { end: k + 1, truncated: false, inString: false };
      if (stack.length === 0) return { end: k + 1, truncated: false, inString: false };
    }
  }
  return { end: src.length, truncated: true, inString: quote !== null };
}

/** Whether only separators (whitespace, `;`, `<|python_tag|>`) follow `i`. */
export function restIsBlank(src: string, i: number): boolean {
  return skipSeparators(src, i) >= src.length;
}

function skipSeparators(src: string, i: number): number {
  for (;;) {
    const j = skipSpace(src, i);
    if (src[j] === ';') i = j + 1;
    else if (src.startsWith(PYTHON_TAG_TEXT, j)) i = j + PYTHON_TAG_TEXT.length;
    else return j;
  }
}

/** The "name" value written in an attempted JSON call, if one can be read. */
function nameInText(text: string): string {
  const m = /["']name["']\s*:\s*("(?:[^"\\\n]|\\.)*"|'[^'\\\n]*')/.exec(text);
  if (!m) return '';
  const lit = m[1]!;
  if (lit.startsWith("'")) return lit.slice(1, -1);
  try {
    const v: unknown = JSON.parse(lit);
    return typeof v === 'string' ? v : '';
  } catch {
    return '';
  }
}

/** Arguments given as an object, or as a JSON string of one; null otherwise. */
function toArguments(v: unknown): Record<string, unknown> | null {
  if (isObject(v)) return v;
  if (typeof v !== 'string') return null;
  try {
    const parsed: unknown = JSON.parse(v);
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** Reads one parsed JSON value as a custom call. */
export function toCustomCall(value: unknown): Shape {
  if (!isObject(value)) return { kind: 'not-a-call' };
  let obj = value;
  const typed = Object.hasOwn(obj, 'type');
  if (typed) {
    if (obj.type !== 'function') return { kind: 'not-a-call' };
    if (isObject(obj.function)) obj = obj.function;
  }
  if (Object.hasOwn(obj, 'description')) return { kind: 'not-a-call' };
  const name = obj.name;
  const key = ['parameters', 'arguments'].find((k) => Object.hasOwn(obj, k)) ?? null;
  if (typeof name !== 'string' || key === null) {
    if (!typed) return { kind: 'not-a-call' };
    return { kind: 'broken', error: NOT_A_CALL, name: typeof name === 'string' ? name : '' };
  }
  if (name.trim() === '') return { kind: 'broken', error: 'the call has an empty "name"', name: '' };
  const args = toArguments(obj[key]);
  if (!args) return { kind: 'broken', error: `"${key}" must be a JSON object`, name };
  const forbidden = findForbiddenKey(args);
  if (forbidden) return { kind: 'broken', error: forbiddenKeyError(forbidden), name };
  return { kind: 'call', call: { kind: 'custom', name, arguments: args } };
}

/** A JSON object or array at `i`; a Python literal when JSON.parse rejects it. */
type Jsonish = { ok: true; value: unknown; end: number } | { ok: false; error: string; end: number; truncated: boolean };

function parseJsonish(src: string, i: number): Jsonish {
  const ext = scanExtent(src, i);
  if (!ext.truncated) {
    try {
      return { ok: true, value: JSON.parse(src.slice(i, ext.end)) as unknown, end: ext.end };
    } catch {
      // fall through to the Python reading
    }
  }
  const py = parseValue(src, i);
  if (py.ok) return { ok: true, value: py.value, end: py.end };
  if (isForbiddenKeyError(py.error)) return { ok: false, error: py.error, end: ext.end, truncated: false };
  const error = !ext.truncated
    ? 'malformed JSON'
    : ext.inString
      ? 'incomplete JSON: the text ends inside a string'
      : 'incomplete JSON: the text ends before the closing bracket';
  return { ok: false, error, end: ext.end, truncated: ext.truncated };
}

function jsonItem(src: string, i: number): ItemOutcome {
  const parsed = parseJsonish(src, i);
  if (!parsed.ok) {
    const name = nameInText(src.slice(i, parsed.end));
    return { kind: 'broken', error: parsed.error, name, end: parsed.end, truncated: parsed.truncated };
  }
  const { value, end } = parsed;
  const broken = (error: string, name: string): ItemOutcome => ({ kind: 'broken', error, name, end, truncated: false });
  if (!Array.isArray(value)) {
    const shape = toCustomCall(value);
    if (shape.kind === 'call') return { kind: 'calls', calls: [shape.call], end };
    return shape.kind === 'not-a-call' ? { kind: 'not-a-call', end } : broken(shape.error, shape.name);
  }
  if (value.length === 0) return { kind: 'not-a-call', end };
  const calls: ToolCall[] = [];
  for (const [index, element] of value.entries()) {
    const shape = toCustomCall(element);
    if (shape.kind === 'broken') return broken(shape.error, shape.name);
    if (shape.kind === 'not-a-call') {
      if (index === 0) return { kind: 'not-a-call', end };
      return broken(`element ${index + 1} of the list is not a call: ${SHAPE_HINT}`, calls[0]?.name ?? '');
    }
    calls.push(shape.call);
  }
  return { kind: 'calls', calls, end };
}

/** `[f(a=1), g(b="x")]` at `i`: one custom call per element, keyword arguments only. */
function pythonListItem(src: string, i: number): ItemOutcome {
  const calls: ToolCall[] = [];
  const broken = (error: string, name: string): ItemOutcome => {
    const ext = scanExtent(src, i);
    return { kind: 'broken', error, name, end: ext.end, truncated: ext.truncated };
  };
  let k = skipSpace(src, i + 1);
  for (;;) {
    if (src[k] === ']') break;
    const call = parseCall(src, k);
    if (!call.ok) {
      const name = readIdentifier(src, k)?.name ?? calls[0]?.name ?? '';
      return broken(call.truncated ? `incomplete call: ${call.error}` : call.error, name);
    }
    const name = call.value.path.join('.');
    if (call.value.positional.length > 0) {
      return broken(`positional arguments are not supported in ${name}(...): use name=value`, name);
    }
    calls.push({ kind: 'custom', name, arguments: call.value.kwargs });
    k = skipSpace(src, call.end);
    if (src[k] === ',') k = skipSpace(src, k + 1);
    else if (src[k] !== ']') {
      return broken(k >= src.length ? "incomplete call list: expected ']'" : "expected ',' or ']' in the call list", name);
    }
  }
  return calls.length === 0 ? { kind: 'not-a-call', end: k + 1 } : { kind: 'calls', calls, end: k + 1 };
}

/**
 * `<function=NAME>{...}</function>` at `i`. The arguments are read as one JSON value, so nested
 * objects and strings containing `</function>` stay intact; an empty body means {}. A missing
 * closing tag is tolerated only at the end of the text or before the next `<function=`.
 */
export function functionTagItem(src: string, i: number): ItemOutcome {
  const closeAt = src.indexOf(FUNCTION_CLOSE, i);
  const spanEnd = closeAt < 0 ? src.length : closeAt + FUNCTION_CLOSE.length;
  const broken = (error: string, name: string): ItemOutcome => ({
    kind: 'broken',
    error,
    name,
    end: spanEnd,
    truncated: closeAt < 0,
  });
  const m = /<function=([^>\s]*)>/y;
  m.lastIndex = i;
  const head = m.exec(src);
  if (!head) return broken('incomplete <function=NAME> tag', '');
  const name = head[1]!;
  if (name === '') return broken('<function=> needs a name', '');
  let k = skipSpace(src, i + head[0].length);
  let args: Record<string, unknown> = {};
  if (src[k] === '{') {
    const parsed = parseJsonish(src, k);
    if (!parsed.ok) {
      const unclosed = parsed.truncated && closeAt >= 0;
      return broken(unclosed ? `malformed JSON: the object is not closed before ${FUNCTION_CLOSE}` : parsed.error, name);
    }
    if (!isObject(parsed.value)) return broken('the arguments must be a JSON object', name);
    const forbidden = findForbiddenKey(parsed.value);
    if (forbidden) return broken(forbiddenKeyError(forbidden), name);
    args = parsed.value;
    k = skipSpace(src, parsed.end);
  } else if (!src.startsWith(FUNCTION_CLOSE, k) && k < src.length) {
    return broken(`expected a JSON object after <function=${name}>`, name);
  }
  if (src.startsWith(FUNCTION_CLOSE, k)) k += FUNCTION_CLOSE.length;
  else if (k < src.length && !src.startsWith(FUNCTION_OPEN, k)) return broken(`missing ${FUNCTION_CLOSE}`, name);
  return { kind: 'calls', calls: [{ kind: 'custom', name, arguments: args }], end: k };
}

function parseItem(src: string, i: number): ItemOutcome {
  if (src.startsWith(FUNCTION_OPEN, i)) return functionTagItem(src, i);
  if (src[i] === '{') return jsonItem(src, i);
  if (src[i] === '[') {
    return readIdentifier(src, skipSpace(src, i + 1)) ? pythonListItem(src, i) : jsonItem(src, i);
  }
  return { kind: 'none' };
}

/** Reads the call block starting at `start` through to the end of `src`. */
export function parseCallBlock(src: string, start: number): BlockOutcome {
  const calls: ToolCall[] = [];
  let i = skipSeparators(src, start);
  while (i < src.length) {
    const item = parseItem(src, i);
    const firstName = calls[0]?.name ?? '';
    if (item.kind === 'none') {
      return calls.length === 0
        ? { kind: 'not-a-call' }
        : { kind: 'broken', error: 'unexpected text after the call', name: firstName, reachesEnd: false };
    }
    if (item.kind === 'not-a-call') {
      if (calls.length === 0) return { kind: 'not-a-call' };
      return { kind: 'broken', error: NOT_A_CALL, name: firstName, reachesEnd: restIsBlank(src, item.end) };
    }
    if (item.kind === 'broken') {
      const reachesEnd = item.truncated || restIsBlank(src, item.end);
      return { kind: 'broken', error: item.error, name: item.name || firstName, reachesEnd };
    }
    calls.push(...item.calls);
    i = skipSeparators(src, item.end);
  }
  return calls.length > 0 ? { kind: 'calls', calls } : { kind: 'not-a-call' };
}

/** Positions of `<function=` in `text`, in order. */
export function functionTagStarts(text: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(FUNCTION_OPEN); i >= 0; i = text.indexOf(FUNCTION_OPEN, i + 1)) out.push(i);
  return out;
}
