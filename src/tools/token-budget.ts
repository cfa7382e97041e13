/**
 * Deliberate truncation of a tool result to a token budget, with the cut marked (shared/FORMAT.md
 * "Tool results"). A result over budget becomes
 *
 *   {"truncated": true, "shown_chars": 5400, "total_chars": 48213, "content": "<the first 5400 chars>"}
 *
 * written with Python's separators; `content` is the start of the full text as a JSON string, cut
 * between code points and, when one is near, at a line break or space. Chars are UTF-16 code units
 * (JavaScript's `length`).
 *
 * Invariants:
 * - The output is the text itself when it fits, else the marker above, and the marker fits the budget
 *   as counted by `countTokens` — unless the budget cannot hold even an empty marker (about 30
 *   tokens), when the marker with empty content is returned.
 * - At most MAX_COUNT_CALLS calls to `countTokens` (one for the full text, the rest to aim the cut),
 *   and none when the UTF-8 size alone proves the text fits: every token covers at least one byte.
 *   Counting is the page's own tokenizer, synchronous; the bound keeps a huge result from being
 *   encoded many times over.
 */
import { pythonJson } from '../format/python-json';

export type CountTokens = (text: string) => number;

/** Calls to `countTokens` per result, at most. */
export const MAX_COUNT_CALLS = 4;
/** Aim below the budget by this share, so the first measured cut usually fits. */
const AIM = 0.95;
/** A cut that fits and uses at least this share of the budget is kept without another call. */
const GOOD_ENOUGH = 0.85;
/** How far back (chars) a cut may move to land on a line break or space. */
const SNAP_WINDOW = 80;

export interface TruncationMarker {
  truncated: true;
  shown_chars: number;
  total_chars: number;
  content: string;
}

export function truncationMarker(text: string, shownChars: number): string {
  const marker: TruncationMarker = { truncated: true, shown_chars: shownChars, total_chars: text.length, content: text.slice(0, shownChars) };
  return pythonJson(marker);
}

export function fitToTokenBudget(text: string, maxTokens: number, countTokens: CountTokens): string {
  if (!(maxTokens >= 1)) throw new RangeError(`maxTokens must be at least 1, got ${maxTokens}`);
  if (utf8Length(text) <= maxTokens) return text;
  const total = countTokens(text);
  if (total <= maxTokens) return text;

  let best: { marked: string; tokens: number } | undefined;
  let charsPerToken = text.length / Math.max(total, 1);
  let limit = Math.floor(maxTokens * AIM * charsPerToken);
  for (let calls = 1; calls < MAX_COUNT_CALLS; calls++) {
    const marked = truncationMarker(text, cutWithin(text, limit, (s) => s.length));
    const tokens = countTokens(marked);
    if (tokens <= maxTokens && (best === undefined || tokens > best.tokens)) best = { marked, tokens };
    if (tokens <= maxTokens && tokens >= GOOD_ENOUGH * maxTokens) break;
    // Re-aim with the ratio measured on the marked form itself (escaping changes it).
    charsPerToken = marked.length / Math.max(tokens, 1);
    const next = Math.floor(maxTokens * AIM * charsPerToken);
    // Over budget: always shrink, even if the new ratio says otherwise.
    limit = tokens > maxTokens ? Math.min(next, Math.floor(marked.length * (maxTokens / tokens) * AIM)) : next;
  }
  if (best) return best.marked;
  // Every aimed cut missed: fall back to one that needs no count (bytes bound tokens from above).
  return truncationMarker(text, cutWithin(text, maxTokens, utf8Length));
}

/**
 * The longest prefix length n < text.length whose marker measures at most `limit`, moved back to a
 * code-point boundary and, when one lies within SNAP_WINDOW, to just after a line break or space.
 * 0 when even the empty marker is over the limit.
 */
function cutWithin(text: string, limit: number, measure: (s: string) => number): number {
  let lo = 0;
  let hi = Math.min(text.length - 1, Math.max(limit, 0));
  if (measure(truncationMarker(text, 0)) > limit) return 0;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measure(truncationMarker(text, mid)) <= limit) lo = mid;
    else hi = mid - 1;
  }
  return snap(text, lo);
}

function snap(text: string, n: number): number {
  let cut = n;
  if (cut > 0 && cut < text.length && isHighSurrogate(text.charCodeAt(cut - 1))) cut -= 1;
  const floor = Math.max(0, cut - SNAP_WINDOW);
  for (const breaker of ['\n', ' ']) {
    const at = text.lastIndexOf(breaker, cut - 1);
    if (at >= floor && at > 0) return at + 1;
  }
  return cut;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** UTF-8 size of a JS string (a lone surrogate counts as the 3 bytes of U+FFFD). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (isHighSurrogate(c) && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}
