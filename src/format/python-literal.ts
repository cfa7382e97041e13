/**
 * Python literals as the model writes them inside calls, and keyword-argument calls built from them.
 *
 * Accepted values: string literals (single, double or triple quotes; prefixes r/R/u/U; escapes
 * decoded as Python decodes them; adjacent literals concatenated), ints (decimal, 0x, 0o, 0b, `_`
 * separators; big ints lose precision as JS numbers do), floats, a leading `-`/`+`, `True`/`False`/
 * `None` (and, leniently, JSON's `true`/`false`/`null`), and lists, tuples (→ arrays) and dicts with
 * string or number keys (→ objects) of those. Anything else — names, expressions, bytes, f-strings,
 * sets — is an error, not a guess. A dict key or keyword named `__proto__`, `constructor` or
 * `prototype` is an error too (argument-keys.ts): no such key ever reaches a tool.
 *
 * Invariants: nothing here throws; every scan returns either a value and the index just past it, or
 * a short reason, the index where reading stopped, and `truncated` (true when the input ended before
 * the literal or call did, i.e. the text was cut off rather than malformed).
 */

import { forbiddenKeyError, isForbiddenKey } from './argument-keys';

export type PyValue = string | number | boolean | null | PyValue[] | { [key: string]: PyValue };

export type Scan<T> =
  | { ok: true; value: T; end: number }
  | { ok: false; error: string; at: number; truncated: boolean };

/** A call `a.b.c(x, key=value)`: the dotted name's parts, positional values and keyword values. */
export interface PyCall {
  path: string[];
  positional: PyValue[];
  kwargs: Record<string, PyValue>;
}

const MAX_DEPTH = 64;
const IDENTIFIER = /[\p{L}_][\p{L}\p{N}\p{M}_]*/uy;
const STRING_START = /([rRuUbBfF]{0,2})(['"])/y;
const NUMBER_FORMS = [
  /0[xX](?:_?[0-9a-fA-F])+/y,
  /0[oO](?:_?[0-7])+/y,
  /0[bB](?:_?[01])+/y,
  /(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?/y,
];
const KEYWORDS: Readonly<Record<string, boolean | null>> = {
  True: true,
  False: false,
  None: null,
  true: true,
  false: false,
  null: null,
};
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

function fail(error: string, at: number, src: string, truncated = at >= src.length): Scan<never> {
  return { ok: false, error, at, truncated };
}

/** Sets `key` as an own enumerable property (a plain assignment to `__proto__` would set the prototype). */
export function defineKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Index of the first character at or after `i` that is not whitespace or a line continuation. */
export function skipSpace(src: string, i: number): number {
  for (;;) {
    const c = src[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') i++;
    else if (c === '\\' && src[i + 1] === '\n') i += 2;
    else return i;
  }
}

/** The identifier starting exactly at `i`, or null. */
export function readIdentifier(src: string, i: number): { name: string; end: number } | null {
  IDENTIFIER.lastIndex = i;
  const m = IDENTIFIER.exec(src);
  return m ? { name: m[0], end: i + m[0].length } : null;
}

/** Whether a string literal (with an optional prefix) starts at `i`. */
export function startsString(src: string, i: number): boolean {
  STRING_START.lastIndex = i;
  return STRING_START.test(src);
}

function hexValue(src: string, i: number, digits: number): number | null {
  const s = src.slice(i, i + digits);
  return s.length === digits && /^[0-9a-fA-F]+$/.test(s) ? parseInt(s, 16) : null;
}

/** Decodes the escape whose backslash is at `i` (non-raw string); returns the text and the next index. */
function decodeEscape(src: string, i: number): Scan<string> {
  const n = src[i + 1];
  if (n === undefined) return fail('unterminated string literal', i, src, true);
  const simple = SIMPLE_ESCAPES[n];
  if (simple !== undefined) return { ok: true, value: simple, end: i + 2 };
  if (n === '\n') return { ok: true, value: '', end: i + 2 };
  if (n === '\r') return { ok: true, value: '', end: src[i + 2] === '\n' ? i + 3 : i + 2 };
  if (n >= '0' && n <= '7') {
    let j = i + 1;
    while (j < i + 4 && src[j] !== undefined && src[j]! >= '0' && src[j]! <= '7') j++;
    return { ok: true, value: String.fromCodePoint(parseInt(src.slice(i + 1, j), 8)), end: j };
  }
  const width = n === 'x' ? 2 : n === 'u' ? 4 : n === 'U' ? 8 : 0;
  if (width > 0) {
    const code = hexValue(src, i + 2, width);
    if (code === null) {
      return fail(`invalid \\${n} escape`, i, src, i + 2 + width > src.length);
    }
    if (code > 0x10ffff) return fail(`invalid \\${n} escape`, i, src, false);
    return { ok: true, value: String.fromCodePoint(code), end: i + 2 + width };
  }
  if (n === 'N') return fail('\\N{...} escapes are not supported', i, src, false);
  return { ok: true, value: `\\${n}`, end: i + 2 };
}

/** One string literal starting at `i` (prefix included). */
export function parseStringLiteral(src: string, i: number): Scan<string> {
  STRING_START.lastIndex = i;
  const m = STRING_START.exec(src);
  if (!m) return fail('expected a string literal', i, src);
  const prefix = m[1]!.toLowerCase();
  if (prefix.includes('b')) return fail('bytes literals are not supported', i, src, false);
  if (prefix.includes('f')) return fail('f-strings are not supported', i, src, false);
  if (prefix.length > 1) return fail(`invalid string prefix ${m[1]}`, i, src, false);
  const raw = prefix === 'r';
  const quote = m[2]!;
  const triple = src.startsWith(quote.repeat(3), i + prefix.length);
  const close = triple ? quote.repeat(3) : quote;
  let k = i + prefix.length + close.length;
  let out = '';
  for (;;) {
    if (k >= src.length) return fail('unterminated string literal', src.length, src, true);
    if (src.startsWith(close, k)) return { ok: true, value: out, end: k + close.length };
    const c = src[k]!;
    if (c !== '\\') {
      out += c;
      k++;
    } else if (raw) {
      if (k + 1 >= src.length) return fail('unterminated string literal', src.length, src, true);
      out += c + src[k + 1]!;
      k += 2;
    } else {
      const esc = decodeEscape(src, k);
      if (!esc.ok) return esc;
      out += esc.value;
      k = esc.end;
    }
  }
}

/** A string literal followed by any adjacent ones, concatenated as Python does. */
function parseStrings(src: string, i: number): Scan<string> {
  let first = parseStringLiteral(src, i);
  if (!first.ok) return first;
  let value = first.value;
  let end = first.end;
  for (;;) {
    const j = skipSpace(src, end);
    if (!startsString(src, j)) return { ok: true, value, end };
    first = parseStringLiteral(src, j);
    if (!first.ok) return first;
    value += first.value;
    end = first.end;
  }
}

function parseNumber(src: string, i: number): Scan<number> {
  for (const form of NUMBER_FORMS) {
    form.lastIndex = i;
    const m = form.exec(src);
    if (!m || m[0].length === 0) continue;
    const end = i + m[0].length;
    const next = src[end];
    if (next !== undefined && (/[\p{L}\p{N}_.]/u.test(next))) {
      return fail(`not a supported number: ${src.slice(i, end + 1)}`, end, src, false);
    }
    return { ok: true, value: Number(m[0].replace(/_/g, '')), end };
  }
  return fail('expected a number', i, src);
}

/** Items of a list, tuple or dict until `close`; `item` reads one entry at its start index. */
function parseSequence(
  src: string,
  i: number,
  close: string,
  item: (at: number) => Scan<unknown>,
): Scan<{ count: number; trailingComma: boolean }> {
  let k = skipSpace(src, i);
  let count = 0;
  let trailingComma = false;
  for (;;) {
    if (k >= src.length) return fail(`expected '${close}'`, k, src, true);
    if (src[k] === close) return { ok: true, value: { count, trailingComma }, end: k + 1 };
    const r = item(k);
    if (!r.ok) return r;
    count++;
    k = skipSpace(src, r.end);
    if (src[k] === ',') {
      trailingComma = true;
      k = skipSpace(src, k + 1);
    } else if (src[k] === close) {
      trailingComma = false;
    } else if (k >= src.length) {
      return fail(`expected '${close}'`, k, src, true);
    } else {
      return fail(`expected ',' or '${close}'`, k, src, false);
    }
  }
}

/** One literal value starting at `i` (no leading whitespace). */
export function parseValue(src: string, i: number, depth = 0): Scan<PyValue> {
  if (depth > MAX_DEPTH) return fail('nesting too deep', i, src, false);
  if (i >= src.length) return fail('expected a value', i, src, true);
  if (startsString(src, i)) return parseStrings(src, i);
  const c = src[i]!;
  if (c === '-' || c === '+') {
    const j = skipSpace(src, i + 1);
    const n = parseNumber(src, j);
    return n.ok ? { ok: true, value: c === '-' ? -n.value : n.value, end: n.end } : n;
  }
  if ((c >= '0' && c <= '9') || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) return parseNumber(src, i);
  if (c === '[' || c === '(') {
    const close = c === '[' ? ']' : ')';
    const items: PyValue[] = [];
    const r = parseSequence(src, i + 1, close, (at) => {
      const v = parseValue(src, at, depth + 1);
      if (v.ok) items.push(v.value);
      return v;
    });
    if (!r.ok) return r;
    // `(x)` is x itself; `(x,)` and `()` are tuples.
    if (c === '(' && r.value.count === 1 && !r.value.trailingComma) return { ok: true, value: items[0]!, end: r.end };
    return { ok: true, value: items, end: r.end };
  }
  if (c === '{') {
    const obj: Record<string, PyValue> = {};
    const r = parseSequence(src, i + 1, '}', (at) => {
      const key = parseValue(src, at, depth + 1);
      if (!key.ok) return key;
      if (typeof key.value !== 'string' && typeof key.value !== 'number') {
        return fail('dict keys must be strings or numbers', at, src, false);
      }
      if (typeof key.value === 'string' && isForbiddenKey(key.value)) return fail(forbiddenKeyError(key.value), at, src, false);
      const colon = skipSpace(src, key.end);
      if (src[colon] !== ':') return fail("expected ':'", colon, src);
      const v = parseValue(src, skipSpace(src, colon + 1), depth + 1);
      if (v.ok) defineKey(obj, String(key.value), v.value);
      return v;
    });
    return r.ok ? { ok: true, value: obj, end: r.end } : r;
  }
  const id = readIdentifier(src, i);
  if (id) {
    const kw = KEYWORDS[id.name];
    if (kw !== undefined) return { ok: true, value: kw, end: id.end };
    return fail(`expected a literal value, found ${id.name}`, i, src, false);
  }
  return fail('expected a value', i, src, false);
}

/** A dotted name `a.b.c` starting at `i`, whitespace allowed around the dots. */
export function parseDottedName(src: string, i: number): Scan<string[]> {
  const first = readIdentifier(src, i);
  if (!first) return fail('expected a name', i, src);
  const path = [first.name];
  let end = first.end;
  for (;;) {
    const dot = skipSpace(src, end);
    if (src[dot] !== '.') return { ok: true, value: path, end };
    const next = readIdentifier(src, skipSpace(src, dot + 1));
    if (!next) return fail('expected a name after "."', skipSpace(src, dot + 1), src);
    path.push(next.name);
    end = next.end;
  }
}

/**
 * A call `name.path(value, ..., key=value, ...)` starting at `i` (trailing comma allowed). Keyword
 * arguments must be unique; a positional argument after a keyword one is an error, as in Python.
 */
export function parseCall(src: string, i: number): Scan<PyCall> {
  const name = parseDottedName(src, i);
  if (!name.ok) return name;
  const open = skipSpace(src, name.end);
  if (src[open] !== '(') return fail("expected '('", open, src);
  const positional: PyValue[] = [];
  const kwargs: Record<string, PyValue> = {};
  const r = parseSequence(src, open + 1, ')', (at) => {
    const id = readIdentifier(src, at);
    const eq = id ? skipSpace(src, id.end) : -1;
    if (id && src[eq] === '=' && src[eq + 1] !== '=') {
      if (Object.hasOwn(kwargs, id.name)) return fail(`duplicate argument ${id.name}`, at, src, false);
      if (isForbiddenKey(id.name)) return fail(forbiddenKeyError(id.name), at, src, false);
      const v = parseValue(src, skipSpace(src, eq + 1));
      if (v.ok) defineKey(kwargs, id.name, v.value);
      return v;
    }
    if (Object.keys(kwargs).length > 0) return fail('positional argument after keyword argument', at, src, false);
    const v = parseValue(src, at);
    if (v.ok) positional.push(v.value);
    return v;
  });
  if (!r.ok) return r;
  return { ok: true, value: { path: name.value, positional, kwargs }, end: r.end };
}
