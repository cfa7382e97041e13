/**
 * Removes API keys from text the proxy sends back, whatever spelling an upstream echoed them in.
 *
 * Invariant: every character of a key matches in each of the spellings a URL, a form or a JSON
 * string can give it — itself; its UTF-8 bytes percent-encoded (either hex case, also with the `%`
 * encoded once more as `%25`); `+` for a space (form encoding, which also encodes `'()!~`); a JSON
 * `\uXXXX` escape; `\"`, `\\`, `\/` — so raw, `encodeURIComponent`, `URLSearchParams`, WHATWG-URL and
 * JSON-escaped copies, and any mix of them, all become `[redacted]`.
 */

export const REDACTED = '[redacted]';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** `[0-9a-fA-F]` pairs matching one byte in either case: 0x2F → `2[fF]`. */
function hexPattern(byte: number): string {
  return [...byte.toString(16).padStart(2, '0')].map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d)).join('');
}

function charPattern(char: string): string {
  const alternatives = [escapeRegExp(char)];
  const bytes = new TextEncoder().encode(char);
  alternatives.push([...bytes].map((b) => `%(?:25)?${hexPattern(b)}`).join(''));
  const units = [...Array(char.length).keys()].map((i) => char.charCodeAt(i));
  alternatives.push(units.map((u) => `\\\\u${[u >> 8, u & 0xff].map(hexPattern).join('')}`).join(''));
  if (char === ' ') alternatives.push('\\+');
  if (char === '"' || char === '\\' || char === '/') alternatives.push(`\\\\${escapeRegExp(char)}`);
  return `(?:${alternatives.join('|')})`;
}

/** A pattern matching `key` in every spelling above (global). */
export function keyPattern(key: string): RegExp {
  return new RegExp([...key].map(charPattern).join(''), 'g');
}

/** `text` with every spelling of every non-empty key replaced by `[redacted]`. */
export function redactKeys(text: string, keys: readonly string[]): string {
  let out = text;
  for (const key of keys) if (key) out = out.replace(keyPattern(key), REDACTED);
  return out;
}
