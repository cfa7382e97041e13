import { describe, expect, it } from 'vitest';
import { BYTE_TO_CHAR, bytesToChars, charsToBytes } from './byte-level';

describe('byte-level alphabet', () => {
  it('maps the 256 bytes to 256 distinct single BMP characters', () => {
    expect(BYTE_TO_CHAR).toHaveLength(256);
    expect(new Set(BYTE_TO_CHAR).size).toBe(256);
    for (const char of BYTE_TO_CHAR) expect(char).toHaveLength(1);
  });

  const cases: Record<string, { byte: number; char: string }> = {
    'space is Ġ': { byte: 0x20, char: '\u0120' },
    'newline is Ċ': { byte: 0x0a, char: '\u010a' },
    'NUL is Ā': { byte: 0x00, char: '\u0100' },
    'printable ASCII is itself': { byte: 0x41, char: 'A' },
    'tilde is itself': { byte: 0x7e, char: '~' },
    'DEL is ġ': { byte: 0x7f, char: '\u0121' },
    'soft hyphen byte is Ń': { byte: 0xad, char: '\u0143' },
    'printable Latin-1 is itself': { byte: 0xe9, char: 'é' },
  };
  for (const [name, { byte, char }] of Object.entries(cases)) {
    it(name, () => {
      expect(BYTE_TO_CHAR[byte]).toBe(char);
      expect([...charsToBytes(char)]).toEqual([byte]);
    });
  }

  it('round-trips every byte sequence', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(charsToBytes(bytesToChars(all))).toEqual(all);
  });

  it('rejects characters outside the alphabet', () => {
    expect(() => charsToBytes(' ')).toThrow(RangeError);
    expect(() => charsToBytes('中')).toThrow(RangeError);
  });
});
