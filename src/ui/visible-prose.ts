/**
 * What of a step's streaming prose the user sees as the answer. The loop already splits the stream
 * at the model's python tag (id 128010: everything after it is a `call` part, never shown as prose);
 * what is left to hide is a custom call written as text — a JSON or `<function=` call block — which
 * tool cards show instead.
 *
 * Invariants: while streaming, the visible text only grows or stays (a suspected call is hidden from
 * where it starts; never shown then withdrawn, except that a line that turns out to open a call block
 * is cut back to the line start); the characters `<|python_tag|>` in prose are text and stay; once the
 * step finished, the parser's content (the `step-finish` event's) is the answer.
 */

/** A line that may open a custom call: `{`, `[{`, `[name(`, `<function=`. */
const CALL_START = /(^|\n)[ \t]*(\{|\[\s*\{|\[\s*[A-Za-z_][\w.]*\s*\(|<function=)/;

/** The prose to show for the prose part of a step still streaming. */
export function streamingProse(prose: string): string {
  const call = CALL_START.exec(prose);
  return call ? prose.slice(0, call.index) : prose;
}
