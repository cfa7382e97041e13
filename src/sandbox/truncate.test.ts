import { describe, expect, it } from 'vitest';
import { keepHead, keepTail } from './truncate';

describe('keepHead', () => {
  const cases: Record<string, { input: [string, number, number?]; expected: { text: string; cut: boolean } }> = {
    'within the limit: unchanged': { input: ['abc', 3], expected: { text: 'abc', cut: false } },
    'over: the start and a marker line': { input: ['abcdef', 4], expected: { text: 'abcd\n[… 2 more characters not shown]', cut: true } },
    'a cut after a newline adds no blank line': { input: ['ab\ncd', 3], expected: { text: 'ab\n[… 2 more characters not shown]', cut: true } },
    'dropped upstream counts too': { input: ['abc', 10, 7], expected: { text: 'abc\n[… 7 more characters not shown]', cut: true } },
    'everything dropped upstream': { input: ['', 10, 7], expected: { text: '[… 7 more characters not shown]', cut: true } },
    'never splits a surrogate pair': { input: ['a😀b', 2], expected: { text: 'a\n[… 3 more characters not shown]', cut: true } },
  };
  for (const [name, { input, expected }] of Object.entries(cases)) it(name, () => expect(keepHead(...input)).toEqual(expected));
});

describe('keepTail', () => {
  const cases: Record<string, { input: [string, number, number?]; expected: { text: string; cut: boolean } }> = {
    'within the limit: unchanged': { input: ['abc', 3], expected: { text: 'abc', cut: false } },
    'over: a marker line and the end': { input: ['abcdef', 4], expected: { text: '[… 2 earlier characters not shown]\ncdef', cut: true } },
    'dropped upstream counts too': { input: ['abc', 10, 5], expected: { text: '[… 5 earlier characters not shown]\nabc', cut: true } },
    'never splits a surrogate pair': { input: ['a😀b', 2], expected: { text: '[… 3 earlier characters not shown]\nb', cut: true } },
  };
  for (const [name, { input, expected }] of Object.entries(cases)) it(name, () => expect(keepTail(...input)).toEqual(expected));
});
