/**
 * Which part of a reply still being generated is shown as its visible content: one rule for the
 * API's streamed content and the chat page's streaming prose. A custom call needs no tag (it is text
 * that turns out to be a call), so what might still become a call, a stop string or trimmed
 * whitespace is held back until the reply is parsed.
 *
 * Invariant: as the reply grows, the visible text is always a prefix of the final content (what
 * parse.ts reads from the whole reply, cut at a stop string), so it is never withdrawn. For that,
 * when calls are read, nothing is shown while the text could still open a call (it starts with
 * whitespace, `{`, `[` or `<`), and nothing from the first line that opens with `{` or `[`, nor from a
 * `<` that could start `<function=`; trailing whitespace waits for more text; after the tag, the text
 * before it is final. In every mode a tail that could begin a stop string waits. The characters
 * `<|python_tag|>` inside prose are text and stay.
 */
import { FUNCTION_OPEN } from './custom-calls';
import { PYTHON_TAG_TEXT } from './special-tokens';

export interface VisibleTextOptions {
  /** Calls are read from the reply (tools offered and allowed); otherwise it is plain text. */
  readCalls: boolean;
  stops?: readonly string[];
}

/** What can be shown of the reply so far (split at the python tag). */
export function visibleText(pieces: readonly string[], o: VisibleTextOptions): string {
  const stops = o.stops ?? [];
  if (!o.readCalls) {
    const text = pieces.join(PYTHON_TAG_TEXT);
    return text.slice(0, stopPartialStart(text, stops));
  }
  const before = pieces[0] ?? '';
  if (pieces.length > 1) return before.trim();
  if (before === '' || /^[\s{[<]/u.test(before)) return '';
  const hold = Math.min(lineBlockStart(before), functionTagCandidate(before), stopPartialStart(before, stops));
  return before.slice(0, hold).trimEnd();
}

/** Where the first later line that opens with `{` or `[` (after indentation) starts, or the length. */
function lineBlockStart(text: string): number {
  const m = /\n[ \t\r]*[{[]/.exec(text);
  return m ? m.index + 1 : text.length;
}

/** The first `<` from which the text is, or could still become, `<function=`; or the length. */
function functionTagCandidate(text: string): number {
  for (let i = text.indexOf('<'); i >= 0; i = text.indexOf('<', i + 1)) {
    const rest = text.slice(i);
    if (rest.startsWith(FUNCTION_OPEN) || FUNCTION_OPEN.startsWith(rest)) return i;
  }
  return text.length;
}

/** The earliest position from which the text's tail is a beginning of some stop string; or the length. */
function stopPartialStart(text: string, stops: readonly string[]): number {
  const longest = Math.max(0, ...stops.map((s) => s.length));
  for (let i = Math.max(0, text.length - longest + 1); i < text.length; i++) {
    const tail = text.slice(i);
    if (stops.some((s) => s.startsWith(tail))) return i;
  }
  return text.length;
}
