/**
 * A running cap on streamed output: keeps the first `limit` characters and only counts the rest,
 * so a flood of prints costs neither memory nor messages.
 *
 * Self-contained (no imports, no module-level names): the Pyodide worker receives its source via
 * Function.prototype.toString.
 */
export interface OutputCap {
  /** The part of `text` still within the limit ('' once full); the rest is counted as dropped. */
  take(text: string): string;
  /** Characters dropped so far. */
  dropped(): number;
}

export function createOutputCap(limit: number): OutputCap {
  let kept = 0;
  let dropped = 0;
  return {
    take(text: string): string {
      const room = limit - kept;
      if (text.length <= room) {
        kept += text.length;
        return text;
      }
      let end = Math.max(room, 0);
      // Never split a surrogate pair.
      if (end > 0 && text.charCodeAt(end - 1) >= 0xd800 && text.charCodeAt(end - 1) <= 0xdbff) end -= 1;
      kept = limit;
      dropped += text.length - end;
      return text.slice(0, end);
    },
    dropped: () => dropped,
  };
}
