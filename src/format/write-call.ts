/**
 * Calls written the way Llama 3.1 writes them (shared/FORMAT.md "Assistant turns and the raw text"),
 * for structured assistant messages that have no raw text. Each function returns the text after
 * `<|python_tag|>`; the renderer adds the tag (built-in and code) and the terminator.
 *
 * Round trip: parseAssistantOutput(`<|python_tag|>` + writeBuiltinCall(n, a) + `<|eom_id|>`) gives
 * {kind: 'builtin', name: n, arguments: a} for n other than code_interpreter, and
 * parseAssistantOutput(writeCustomCall(n, a) + `<|eot_id|>`) gives {kind: 'custom', name: n, arguments: a}
 * (for JSON-safe a; -0 reads back as 0).
 */

import { pythonJson } from './python-json';

const IDENTIFIER = /^[\p{L}_][\p{L}\p{N}\p{M}_]*$/u;

/**
 * A Python string literal in double quotes: backslash and `"` escaped, newline as \n, CR and tab as
 * \r and \t, other control characters as \xNN, lone surrogates as \uXXXX; everything else literal.
 */
export function pythonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const code = s.charCodeAt(i);
    if (c === '\\') out += '\\\\';
    else if (c === '"') out += '\\"';
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < s.length && /[\udc00-\udfff]/.test(s[i + 1]!)) {
      out += c + s[i + 1]!;
      i++;
    } else if (code >= 0xd800 && code <= 0xdfff) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += c;
  }
  return `${out}"`;
}

/**
 * A value as a Python literal: strings as pythonString, true/false/null as True/False/None,
 * finite numbers as JS writes them (Python reads them alike), non-finite numbers and undefined as
 * None, arrays as lists, objects as dicts with string keys.
 */
export function pythonLiteral(value: unknown): string {
  if (typeof value === 'string') return pythonString(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'None';
  if (typeof value === 'bigint') return value.toString();
  if (value === null || value === undefined) return 'None';
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(
      ([, v]) => v !== undefined && typeof v !== 'function',
    );
    return `{${entries.map(([k, v]) => `${pythonString(k)}: ${pythonLiteral(v)}`).join(', ')}}`;
  }
  throw new TypeError(`cannot write ${typeof value} as a Python literal`);
}

/**
 * `brave_search.call(query="Reykjavik population")`: keyword arguments in the object's order.
 * Throws TypeError when the name or an argument key is not a Python identifier.
 */
export function writeBuiltinCall(name: string, args: Record<string, unknown>): string {
  if (!IDENTIFIER.test(name)) throw new TypeError(`not a built-in tool name: ${JSON.stringify(name)}`);
  const parts = Object.entries(args)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => {
      if (!IDENTIFIER.test(k)) throw new TypeError(`not a keyword argument name: ${JSON.stringify(k)}`);
      return `${k}=${pythonLiteral(v)}`;
    });
  return `${name}.call(${parts.join(', ')})`;
}

/** `{"name": "get_weather", "parameters": {"city": "Paris"}}`, JSON with Python's separators. */
export function writeCustomCall(name: string, args: Record<string, unknown>): string {
  return pythonJson({ name, parameters: args });
}
