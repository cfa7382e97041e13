import { describe, expect, it } from 'vitest';
import { keySpellings } from '../../tests/fakes/brave-wolfram-fake';
import { REDACTED, redactKeys } from './key-redaction';

const KEY = "k3y with spaces+'()!~*/?&=\"\\é";

describe('redactKeys', () => {
  const spellings = keySpellings(KEY);
  it('the spellings differ from one another (each case tests something)', () => {
    expect(new Set(spellings).size).toBe(spellings.length);
  });
  for (const [i, spelling] of spellings.entries()) {
    it(`spelling ${i}: ${spelling.slice(0, 40)}…`, () => {
      expect(redactKeys(`before ${spelling} after`, [KEY])).toBe(`before ${REDACTED} after`);
    });
  }

  const cases: Record<string, { text: string; expected: string }> = {
    'JSON escapes inside a JSON string keep the JSON valid': {
      text: JSON.stringify({ token: KEY, n: 1 }),
      expected: JSON.stringify({ token: REDACTED, n: 1 }),
    },
    'mixed spellings in one copy': { text: `x=k3y%20with+spaces%2B%27()!~*/?&=%22%5C%C3%A9`, expected: `x=${REDACTED}` },
    'every copy, not only the first': { text: `${KEY}|${encodeURIComponent(KEY)}|${KEY}`, expected: `${REDACTED}|${REDACTED}|${REDACTED}` },
    'other text is untouched': { text: 'k3y with spaces but not the rest', expected: 'k3y with spaces but not the rest' },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => expect(redactKeys(c.text, [KEY])).toBe(c.expected));
  }

  it('every key given, and an empty key redacts nothing', () => {
    expect(redactKeys('a-key b-key', ['a-key', 'b-key', ''])).toBe(`${REDACTED} ${REDACTED}`);
    expect(redactKeys('text', [''])).toBe('text');
  });
});
