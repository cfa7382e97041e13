import { describe, expect, it } from 'vitest';
import { fencedBlocks, inlineSpans } from './markdown-code';
import type { Range } from './markdown-code';

const CASES: Record<string, { input: string; expected: { fenced: Range[]; inline: Range[] } }> = {
  'no code': { input: 'just {braces} here', expected: { fenced: [], inline: [] } },
  'closed backtick fence': { input: 'a\n```json\n{}\n```\nb', expected: { fenced: [{ start: 2, end: 17 }], inline: [] } },
  'tilde fence needs a tilde close': { input: '~~~\nx\n```\n~~~', expected: { fenced: [{ start: 0, end: 13 }], inline: [] } },
  'unclosed fence runs to the end': { input: 'a\n```\ncode', expected: { fenced: [{ start: 2, end: 10 }], inline: [] } },
  'shorter fence does not close a longer one': { input: '````\n```\n````', expected: { fenced: [{ start: 0, end: 13 }], inline: [] } },
  'inline spans match equal runs': { input: 'a `x` b ``y`z`` c', expected: { fenced: [], inline: [{ start: 2, end: 5 }, { start: 8, end: 15 }] } },
  'an unmatched backtick is literal': { input: 'it`s `ok`', expected: { fenced: [], inline: [{ start: 2, end: 6 }] } },
};

describe('markdown code ranges', () => {
  it.each(Object.entries(CASES))('%s', (_name, { input, expected }) => {
    const fenced = fencedBlocks(input);
    expect({ fenced, inline: inlineSpans(input, fenced) }).toEqual(expected);
  });
});
