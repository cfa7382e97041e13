/**
 * GPT-2's byte-level alphabet, as used by Llama 3's tokenizer.json: every byte 0–255 is written as one
 * printable code point, so a vocabulary entry is a string even when its bytes are not valid UTF-8.
 * Bytes that are printable Latin-1 (`!`–`~`, `¡`–`¬`, `®`–`ÿ`) stand for themselves; the other 68
 * bytes map, in byte order, to U+0100 onwards (space 0x20 → `Ġ` U+0120, `\n` 0x0A → `Ċ` U+010A).
 * The map is a bijection between the 256 bytes and 256 distinct code points, all in the BMP.
 */

function isSelfMapped(byte: number): boolean {
  return (byte >= 0x21 && byte <= 0x7e) || (byte >= 0xa1 && byte <= 0xac) || (byte >= 0xae && byte <= 0xff);
}

/** `BYTE_TO_CHAR[b]` is the code point (as a one-char string) that stands for byte `b`. */
export const BYTE_TO_CHAR: readonly string[] = (() => {
  const out: string[] = [];
  let next = 0x100;
  for (let byte = 0; byte < 256; byte++) {
    out.push(String.fromCharCode(isSelfMapped(byte) ? byte : next++));
  }
  return out;
})();

const CHAR_TO_BYTE: ReadonlyMap<string, number> = new Map(BYTE_TO_CHAR.map((char, byte) => [char, byte]));

/** The bytes a byte-level string stands for; throws on a character outside the alphabet. */
export function charsToBytes(chars: string): Uint8Array {
  const out = new Uint8Array(chars.length);
  for (let i = 0; i < chars.length; i++) {
    const byte = CHAR_TO_BYTE.get(chars[i]!);
    if (byte === undefined) {
      throw new RangeError(`not a byte-level character: U+${chars.charCodeAt(i).toString(16).toUpperCase()}`);
    }
    out[i] = byte;
  }
  return out;
}

/** The byte-level string for some bytes (inverse of `charsToBytes`). */
export function bytesToChars(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += BYTE_TO_CHAR[byte]!;
  return out;
}
