import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTRACTION_PATTERN, LLAMA3_SPLIT_PATTERN, pretokenize } from './rust-pretokenize';

describe('pretokenize', () => {
  const cases: Record<string, { input: string; expected: string[] }> = {
    'words keep their leading space': { input: 'Hello big world', expected: ['Hello', ' big', ' world'] },
    'lower-case contractions': { input: "we'll don't I've", expected: ['we', "'ll", ' don', "'t", ' I', "'ve"] },
    'upper-case contractions': { input: "DON'T WE'LL THEY'RE", expected: ['DON', "'T", ' WE', "'LL", ' THEY', "'RE"] },
    'mixed-case contractions': { input: "x'Ll x'rE x'D x'M", expected: ['x', "'Ll", ' x', "'rE", ' x', "'D", ' x', "'M"] },
    'not a contraction': { input: "x'q 'x", expected: ['x', "'q", " '", 'x'] },
    'long s is a contraction (Unicode case folding, as in Rust)': { input: "it'ſt", expected: ['it', "'ſ", 't'] },
    'numbers in threes': { input: '1234567', expected: ['123', '456', '7'] },
    'numbers other scripts': { input: '٣٤٥٦ ½', expected: ['٣٤٥', '٦', ' ', '½'] },
    'punctuation takes one leading space': { input: 'a !!! b', expected: ['a', ' !!!', ' b'] },
    'punctuation swallows following newlines': { input: 'x;\n\ny', expected: ['x', ';\n\n', 'y'] },
    'space runs leave the last space to the word': { input: 'a   b', expected: ['a', '  ', ' b'] },
    'newline runs with spaces': { input: 'a \n\n b', expected: ['a', ' \n\n', ' b'] },
    'crlf': { input: 'a\r\nb', expected: ['a', '\r\n', 'b'] },
    'tab before word': { input: 'a\tb', expected: ['a', '\tb'] },
    'trailing spaces': { input: 'a   ', expected: ['a', '   '] },
    'cjk run is one piece': { input: '中文字符', expected: ['中文字符'] },
    'emoji with space': { input: 'a 😀!', expected: ['a', ' 😀!'] },
    'combining mark is not a letter': { input: 'e\u0301x', expected: ['e', '\u0301x'] },
    'special-token text is ordinary text': { input: '<|eot_id|>', expected: ['<|', 'eot', '_id', '|>'] },
    'BOM is not whitespace (Rust \\s)': { input: 'x\uFEFF!', expected: ['x', '\uFEFF!'] },
    'NEL is whitespace (Rust \\s)': { input: 'x\u0085!', expected: ['x', '\u0085', '!'] },
    'no-break space is whitespace': { input: 'a\u00a0\u00a0b', expected: ['a', '\u00a0', '\u00a0b'] },
    'empty': { input: '', expected: [] },
  };
  for (const [name, { input, expected }] of Object.entries(cases)) {
    it(name, () => expect(pretokenize(input)).toEqual(expected));
  }

  it('states the pattern exactly as tokenizer.json does', () => {
    expect(LLAMA3_SPLIT_PATTERN).toBe(
      "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    );
  });

  it('spells out (?i:) with the same case folding as a case-insensitive Unicode regex', () => {
    // Every character in each letter position: accepted exactly when /i (simple case folding,
    // the same table as Rust's regex crate) accepts it.
    const ours = new RegExp(`^(?:${CONTRACTION_PATTERN})$`, 'u');
    const insensitive = /^'(?:s|t|re|ve|m|ll|d)$/iu;
    const words = ['s', 't', 're', 've', 'm', 'll', 'd'];
    const accepted = new Set<string>();
    for (let cp = 0; cp <= 0x1ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCodePoint(cp);
      for (const word of words) {
        for (let at = 0; at < word.length; at++) {
          const text = `'${word.slice(0, at)}${c}${word.slice(at + 1)}`;
          const expected = insensitive.test(text);
          if (ours.test(text) !== expected) throw new Error(`mismatch for ${JSON.stringify(text)}`);
          if (expected) accepted.add(text);
        }
      }
    }
    expect([...accepted].sort()).toEqual(
      ["'D", "'Ll", "'M", "'Re", "'S", "'T", "'Ve", "'d", "'lL", "'ll", "'m", "'rE", "'re", "'s", "'t", "'vE", "'ve", "'ſ"],
    );
  });

  it('cuts any text into non-empty pieces that join back to it', () => {
    const unit = fc.oneof(
      fc.constantFrom(' ', '  ', '\n', '\r\n', '\t', "'", "'s", "'LL", 'ſ', '1', '12345', 'a', 'Ab', 'é', 'e\u0301', '中', '😀', '\u0085', '\uFEFF', '\u00a0', '<|', '|>', '!'),
      fc.string({ unit: 'binary', maxLength: 3 }),
      fc.string({ unit: 'grapheme', maxLength: 3 }),
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (text) => {
        const pieces = pretokenize(text);
        expect(pieces.join('')).toBe(text);
        for (const piece of pieces) expect(piece.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });
});
