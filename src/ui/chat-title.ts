/** A conversation's automatic title: its first message, on one line, shortened (no model call needed). */
const TITLE_CHARS = 60;

export function titleOf(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line || 'New chat';
}
