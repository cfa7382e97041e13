/**
 * What of a step's raw output the user sees as answer prose. A call's text (after `<|python_tag|>`,
 * a JSON or `<function=` call block) is never shown as prose: tool cards show calls.
 *
 * Invariants: while streaming, the visible text only grows or stays (a suspected call is hidden
 * from where it starts; never shown then withdrawn, except that a line that turns out to open a call
 * block is cut back to the line start); once the step finished, the parser's content is the answer.
 */
import { parseAssistantOutput } from '../format/parse';
import { EOM_TEXT, EOT_TEXT, PYTHON_TAG_TEXT } from '../format/special-tokens';

/** A line that may open a custom call: `{`, `[{`, `[name(`, `<function=`. */
const CALL_START = /(^|\n)[ \t]*(\{|\[\s*\{|\[\s*[A-Za-z_][\w.]*\s*\(|<function=)/;

/** The prose to show for raw text still streaming. */
export function streamingProse(raw: string): string {
  let text = raw;
  const tag = text.indexOf(PYTHON_TAG_TEXT);
  if (tag >= 0) text = text.slice(0, tag);
  const call = CALL_START.exec(text);
  if (call) text = text.slice(0, call.index);
  // A partial `<|python_tag|>` at the very end is not shown either.
  for (let n = Math.min(PYTHON_TAG_TEXT.length - 1, text.length); n > 0; n--) {
    if (PYTHON_TAG_TEXT.startsWith(text.slice(-n))) {
      text = text.slice(0, -n);
      break;
    }
  }
  return text;
}

/** The prose of a finished step (the parser's content); `stop` is the step's stop reason. */
export function finishedProse(raw: string, stop: string): string {
  const terminator = stop === 'eom' ? EOM_TEXT : stop === 'eot' ? EOT_TEXT : '';
  return parseAssistantOutput(raw + terminator).content;
}
