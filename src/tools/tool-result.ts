/**
 * A tool's outcome → the content of its ipython turn (shared/FORMAT.md "Tool results").
 *
 * Invariants:
 * - Never empty: a string is inserted as is, except a blank one (or null/undefined), which becomes
 *   `{"result": "", "note": "the tool returned nothing"}`; any other value is JSON with Python's
 *   separators.
 * - Errors are data: `{"error": "<message>", ...ToolError details}`; a plain Error gives its message
 *   (prefixed by its name unless it is a bare `Error`); no stack, never `err.toString()` of an object.
 * - The result fits `maxTokens` (default 1500) as counted by `countTokens`, the tokenizer's exact count;
 *   an oversized one is cut and marked (see token-budget.ts for the marker and the call bound).
 */
import { pythonJson } from '../format/python-json';
import { FAILURE_TEXTS } from './failure-texts';
import { ToolError } from './tool';
import { fitToTokenBudget, type CountTokens } from './token-budget';

export type ToolOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface FormatToolResultOptions {
  /** Token budget of the turn's content. Default DEFAULT_RESULT_TOKENS. */
  maxTokens?: number;
  countTokens: CountTokens;
}

export const DEFAULT_RESULT_TOKENS = 1500;
export const NOTHING_RETURNED = 'the tool returned nothing';

export function formatToolResult(outcome: ToolOutcome, options: FormatToolResultOptions): string {
  const text = outcome.ok ? valueText(outcome.value) : errorText(outcome.error);
  return fitToTokenBudget(text, options.maxTokens ?? DEFAULT_RESULT_TOKENS, options.countTokens);
}

/** The untruncated text of a successful value. */
export function valueText(value: unknown): string {
  if (value === undefined || value === null) return pythonJson({ result: null, note: NOTHING_RETURNED });
  if (typeof value === 'string') return value.trim() === '' ? pythonJson({ result: value, note: NOTHING_RETURNED }) : value;
  try {
    return pythonJson(value);
  } catch (cause) {
    const why = cause instanceof RangeError ? 'it refers to itself' : cause instanceof Error ? cause.message : 'unknown reason';
    return pythonJson({ error: `the tool's result cannot be written as JSON: ${why}` });
  }
}

/** The untruncated text of a failure: errorData as JSON (details that cannot be written are dropped). */
export function errorText(error: unknown): string {
  const data = errorData(error);
  try {
    return pythonJson(data);
  } catch {
    return pythonJson({ error: data.error });
  }
}

/**
 * An error as the object the model reads. ToolError: message plus details (a detail named `error` is
 * dropped); an object that already has a string `error` (e.g. from the loop): as is; Error: its
 * message; anything else: its string form.
 */
export function errorData(error: unknown): Record<string, unknown> {
  if (error instanceof ToolError) {
    const details = Object.fromEntries(Object.entries(error.details).filter(([k, v]) => k !== 'error' && v !== undefined));
    return { error: error.message || 'the tool failed without saying why', ...details };
  }
  if (error instanceof Error) {
    const message = error.message || 'the tool failed without saying why';
    return { error: error.name && error.name !== 'Error' ? `${error.name}: ${message}` : message };
  }
  if (error !== null && typeof error === 'object' && typeof (error as { error?: unknown }).error === 'string') {
    return { ...(error as Record<string, unknown>) };
  }
  if (typeof error === 'string' && error.trim() !== '') return { error };
  return { error: `the tool failed: ${safeString(error)}` };
}

/** The loop's result for a call that ran out of time: `{"error": "timeout after 5s"}`. */
export function timeoutError(ms: number): string {
  return pythonJson({ error: FAILURE_TEXTS.callTimeout(ms) });
}


function safeString(value: unknown): string {
  try {
    return typeof value === 'object' && value !== null ? pythonJson(value) : String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
