/**
 * Deliberate cuts of long text, each marked with how much was left out so neither the model nor a
 * reader mistakes a cut for the whole. Pure.
 */

export interface Cut {
  text: string;
  /** True when anything was left out (here or before, per `alreadyDropped`). */
  cut: boolean;
}

/** Index at or before `index` that does not split a UTF-16 surrogate pair. */
function boundary(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return Math.max(0, Math.min(index, text.length));
  const code = text.charCodeAt(index - 1);
  return code >= 0xd800 && code <= 0xdbff ? index - 1 : index;
}

/**
 * Keeps at most `limit` characters from the start. When anything was dropped (here, or
 * `alreadyDropped` characters upstream, e.g. while output streamed) it ends with a marker line.
 */
export function keepHead(text: string, limit: number, alreadyDropped = 0): Cut {
  const end = text.length > limit ? boundary(text, limit) : text.length;
  const dropped = text.length - end + alreadyDropped;
  if (dropped === 0) return { text, cut: false };
  const kept = text.slice(0, end);
  const sep = kept === '' || kept.endsWith('\n') ? '' : '\n';
  return { text: `${kept}${sep}[… ${dropped} more characters not shown]`, cut: true };
}

/** Keeps at most `limit` characters from the end (where a traceback says what failed), marked at the top. */
export function keepTail(text: string, limit: number, alreadyDropped = 0): Cut {
  const start = Math.max(text.length - limit, 0);
  const begin = start > 0 && isLowSurrogate(text, start) ? start + 1 : start;
  const dropped = begin + alreadyDropped;
  if (dropped === 0) return { text, cut: false };
  return { text: `[… ${dropped} earlier characters not shown]\n${text.slice(begin)}`, cut: true };
}

function isLowSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff;
}
