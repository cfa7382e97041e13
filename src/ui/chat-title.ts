/** A conversation's automatic title: its first message, on one line, shortened (no model call needed). */
const TITLE_CHARS = 60;

export function titleOf(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line || 'New chat';
}

/** The longest title a user (or an imported file) may give a conversation. */
const NAMED_TITLE_CHARS = 200;

/** A title given by name, trimmed and bounded; null when it is blank. */
export function namedTitle(text: string): string | null {
  const t = text.trim();
  return t === '' ? null : t.slice(0, NAMED_TITLE_CHARS);
}
