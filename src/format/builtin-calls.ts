/**
 * Built-in tool calls after `<|python_tag|>`: `NAME.call(key=value, ...)` with Python literal
 * arguments (shared/FORMAT.md "Reading the model's output", rule 2). Several may follow one another,
 * separated by whitespace, `;` or another `<|python_tag|>`.
 *
 * - `code_interpreter.call(code=...)` → kind `code` with {code}.
 * - any other NAME → kind `builtin` with the keyword arguments as an object.
 * - `brave_search` / `wolfram_alpha` also accept one positional string as {query}, and
 *   `code_interpreter` one positional string as {code}; other positional arguments are an error.
 *
 * Invariant: nothing here throws. A failure reports whether the first call named a known built-in
 * tool, since only then is it a clear attempt at a call rather than code for the interpreter.
 */

import { BUILTIN_TOOL_NAMES, QUERY_TOOL_NAMES } from './builtin-tools';
import { PYTHON_TAG_TEXT } from './special-tokens';
import { parseCall, readIdentifier, skipSpace } from './python-literal';
import type { PyCall } from './python-literal';
import type { ToolCall } from './types';

/** Built-in tools Llama 3.1 was trained to call. */
export const KNOWN_BUILTINS: ReadonlySet<string> = new Set(BUILTIN_TOOL_NAMES);

const QUERY_TOOLS: ReadonlySet<string> = new Set(QUERY_TOOL_NAMES);

export type BuiltinOutcome =
  | { ok: true; calls: ToolCall[] }
  | { ok: false; error: string; name: string; known: boolean };

/** Whether `text` (from `i`) opens with `NAME.call(` — whitespace tolerated around `.` and `(`. */
export function startsBuiltinCall(text: string, i = 0): boolean {
  return /^[\p{L}_][\p{L}\p{N}\p{M}_]*\s*\.\s*call\s*\(/u.test(text.slice(i, i + 200));
}

function toBuiltin(name: string, call: PyCall): ToolCall | string {
  const { positional, kwargs } = call;
  const hasKwargs = Object.keys(kwargs).length > 0;
  const single = positional.length === 1 && !hasKwargs ? positional[0] : undefined;
  if (name === 'code_interpreter') {
    const code = typeof single === 'string' ? single : positional.length === 0 ? kwargs.code : undefined;
    if (typeof code !== 'string') return 'code_interpreter.call needs code="..." (a string)';
    return { kind: 'code', name, arguments: { code } };
  }
  if (QUERY_TOOLS.has(name) && typeof single === 'string') {
    return { kind: 'builtin', name, arguments: { query: single } };
  }
  if (positional.length > 0) return `positional arguments are not supported in ${name}.call(...): use name=value`;
  return { kind: 'builtin', name, arguments: kwargs };
}

/** Reads `text` (the body after the tag, trimmed) as a sequence of built-in calls to its end. */
export function parseBuiltinCalls(text: string): BuiltinOutcome {
  const calls: ToolCall[] = [];
  const firstName = readIdentifier(text, skipSpace(text, 0))?.name ?? '';
  const known = KNOWN_BUILTINS.has(firstName);
  const failure = (error: string, name: string): BuiltinOutcome => ({
    ok: false,
    error,
    name: name || firstName,
    known,
  });
  let i = 0;
  for (;;) {
    for (;;) {
      const j = skipSpace(text, i);
      if (text[j] === ';') i = j + 1;
      else if (text.startsWith(PYTHON_TAG_TEXT, j)) i = j + PYTHON_TAG_TEXT.length;
      else {
        i = j;
        break;
      }
    }
    if (i >= text.length) break;
    if (!startsBuiltinCall(text, i)) return failure('unexpected text after the call', '');
    const parsed = parseCall(text, i);
    const name = readIdentifier(text, i)?.name ?? '';
    if (!parsed.ok) return failure(parsed.truncated ? `incomplete call: ${parsed.error}` : parsed.error, name);
    const call = toBuiltin(name, parsed.value);
    if (typeof call === 'string') return failure(call, name);
    calls.push(call);
    i = parsed.end;
  }
  return { ok: true, calls };
}
