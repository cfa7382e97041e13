/**
 * Where a model answer quotes code in Markdown: fenced blocks (``` or ~~~, closed by a fence of the
 * same character at least as long, or open to the end) and inline code spans (a run of N backticks
 * closed by the next run of exactly N). Call syntax inside these is an example, never a call.
 *
 * Invariant: ranges are half-open [start, end), sorted, non-overlapping; nothing here throws.
 */

export interface Range {
  start: number;
  end: number;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Fenced code blocks, each from its opening fence line to the end of its closing fence line. */
export function fencedBlocks(text: string): Range[] {
  const out: Range[] = [];
  let open: { start: number; char: string; length: number } | null = null;
  let lineStart = 0;
  while (lineStart <= text.length) {
    const nl = text.indexOf('\n', lineStart);
    const lineEnd = nl < 0 ? text.length : nl;
    const line = text.slice(lineStart, lineEnd);
    const m = FENCE.exec(line);
    if (m) {
      const fence = m[1]!;
      if (!open) {
        open = { start: lineStart, char: fence[0]!, length: fence.length };
      } else if (fence[0] === open.char && fence.length >= open.length && line.slice(m[0].length).trim() === '') {
        out.push({ start: open.start, end: nl < 0 ? text.length : nl + 1 });
        open = null;
      }
    }
    if (nl < 0) break;
    lineStart = nl + 1;
  }
  if (open) out.push({ start: open.start, end: text.length });
  return out;
}

/** Inline code spans outside the given fenced blocks. Linear in the number of backtick runs. */
export function inlineSpans(text: string, fenced: readonly Range[]): Range[] {
  const runs: Range[] = [];
  const re = /`+/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (!inRanges(fenced, m.index)) runs.push({ start: m.index, end: m.index + m[0].length });
  }
  // nextSame[a]: the index of the next run as wide as run a, if any.
  const nextSame: Array<number | undefined> = new Array<number | undefined>(runs.length);
  const lastOfWidth = new Map<number, number>();
  for (let a = runs.length - 1; a >= 0; a--) {
    const width = runs[a]!.end - runs[a]!.start;
    nextSame[a] = lastOfWidth.get(width);
    lastOfWidth.set(width, a);
  }
  const out: Range[] = [];
  for (let a = 0; a < runs.length; ) {
    const b = nextSame[a];
    if (b === undefined) {
      a++;
    } else {
      out.push({ start: runs[a]!.start, end: runs[b]!.end });
      a = b + 1;
    }
  }
  return out;
}

/** Whether `pos` lies in one of `ranges` (sorted, non-overlapping): a binary search. */
export function inRanges(ranges: readonly Range[], pos: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = ranges[mid]!;
    if (pos < r.start) hi = mid - 1;
    else if (pos >= r.end) lo = mid + 1;
    else return true;
  }
  return false;
}
