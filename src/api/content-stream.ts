/**
 * The visible content of a reply, streamed while it is generated. A custom call needs no tag (it is
 * text that turns out to be a call), so what might still become a call, a stop string or trimmed
 * whitespace is held back until the reply is parsed.
 *
 * Invariant: the deltas concatenate to exactly the final content (what src/format/parse.ts reads
 * from the whole reply, cut at a stop string), whatever comes next; they are never withdrawn. For that,
 * when calls are read, nothing is sent while the text could still open a call (it starts with
 * whitespace, `{`, `[` or `<`), and nothing from the first line that opens with `{` or `[`, nor from a
 * `<` that could start `<function=`; trailing whitespace waits for more text; after the tag, the text
 * before it is final. In every mode a tail that could begin a stop string waits.
 */
import { FUNCTION_OPEN } from '../format/custom-calls';
import { PYTHON_TAG_TEXT } from '../format/special-tokens';

export class ContentStream {
  private sent = '';

  constructor(
    /** Calls are read from the reply (tools offered and allowed); otherwise the reply is plain text. */
    private readonly readCalls: boolean,
    private readonly stops: readonly string[],
  ) {}

  /** What can be shown now beyond what was sent, given the reply so far (split at the python tag). */
  update(pieces: readonly string[]): string {
    const safe = this.safePrefix(pieces);
    if (!safe.startsWith(this.sent) || safe.length === this.sent.length) return '';
    const delta = safe.slice(this.sent.length);
    this.sent = safe;
    return delta;
  }

  /** The rest of the final content. Throws if something sent is not part of it (a broken invariant). */
  finish(content: string): string {
    if (!content.startsWith(this.sent)) throw new Error('the streamed content is not a prefix of the final content');
    const rest = content.slice(this.sent.length);
    this.sent = content;
    return rest;
  }

  private safePrefix(pieces: readonly string[]): string {
    if (!this.readCalls) {
      const text = pieces.join(PYTHON_TAG_TEXT);
      return text.slice(0, stopPartialStart(text, this.stops));
    }
    const before = pieces[0]!;
    if (pieces.length > 1) return before.trim();
    if (before === '' || /^[\s{[<]/u.test(before)) return '';
    const hold = Math.min(lineBlockStart(before), functionTagCandidate(before), stopPartialStart(before, this.stops));
    return before.slice(0, hold).trimEnd();
  }
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
