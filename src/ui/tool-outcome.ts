/**
 * How a finished tool call went, read from what the model was given (the ipython turn's content) as
 * well as the loop's error flag: a Python exception, a call the user denied, a timeout and output on
 * stderr are failures even when the tool itself "succeeded" (the code interpreter returns its
 * traceback as a value). Pure.
 *
 * Invariants: `done` only when nothing in the content reports a problem; a denied call is `denied`
 * and a timeout `timeout` (never plain `failed`), so the card says what happened.
 */
export type ToolOutcome = 'done' | 'failed' | 'denied' | 'timeout' | 'stderr';

const DENIED = /^the user declined to run |needs the user's confirmation and no one could be asked/;
const TIMEOUT = /^timeout after /;

export function toolOutcome(name: string, content: string, isError: boolean): ToolOutcome {
  const parsed = parseObject(content);
  const error = typeof parsed?.error === 'string' ? parsed.error : null;
  if (error !== null && DENIED.test(error)) return 'denied';
  if (error !== null && TIMEOUT.test(error)) return 'timeout';
  if (isError || error !== null) return 'failed';
  if (name === 'code_interpreter' && typeof parsed?.stderr === 'string' && parsed.stderr.trim() !== '') return 'stderr';
  return 'done';
}

/** A JSON object's fields, or null when the text is not one. */
export function parseObject(text: string): Record<string, unknown> | null {
  const t = text.trim();
  if (!t.startsWith('{')) return null;
  try {
    const v: unknown = JSON.parse(t);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
