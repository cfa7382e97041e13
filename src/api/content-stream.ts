/**
 * The visible content of a reply as deltas while it is generated (the rule: format/visible-text.ts).
 *
 * Invariant: the deltas concatenate to exactly the final content, whatever comes next; they are
 * never withdrawn.
 */
import { visibleText, type VisibleTextOptions } from '../format/visible-text';

export class ContentStream {
  private sent = '';
  private readonly options: VisibleTextOptions;

  constructor(
    /** Calls are read from the reply (tools offered and allowed); otherwise the reply is plain text. */
    readCalls: boolean,
    stops: readonly string[],
  ) {
    this.options = { readCalls, stops };
  }

  /** What can be shown now beyond what was sent, given the reply so far (split at the python tag). */
  update(pieces: readonly string[]): string {
    const safe = visibleText(pieces, this.options);
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
}
