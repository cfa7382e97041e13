import { describe, expect, it } from 'vitest';
import { parseCall, parseValue } from './python-literal';
import type { PyValue, Scan } from './python-literal';

const ok = <T>(value: T, end: number): Scan<T> => ({ ok: true, value, end });
const err = (error: string, at: number, truncated: boolean): Scan<never> => ({ ok: false, error, at, truncated });

const VALUE_CASES: Record<string, { input: string; expected: Scan<PyValue> }> = {
  'double-quoted string': { input: '"abc" rest', expected: ok('abc', 5) },
  'single-quoted string with the other quote inside': { input: `'say "hi"'`, expected: ok('say "hi"', 10) },
  'triple-quoted string with newlines and lone quotes': { input: '"""a\n"b"\n"""', expected: ok('a\n"b"\n', 12) },
  'simple escapes': { input: String.raw`"\\ \' \" \a\b\f\n\r\t\v"`, expected: ok('\\ \' " \x07\b\f\n\r\t\v', 25) },
  'numeric escapes': { input: String.raw`"\x41\u00e9\U0001F600\0\101"`, expected: ok('Aé😀\0A', 28) },
  'unknown escape keeps the backslash': { input: String.raw`"\d+"`, expected: ok('\\d+', 5) },
  'line continuation inside a string': { input: '"a\\\nb"', expected: ok('ab', 6) },
  'raw string': { input: String.raw`r"\n\"x"`, expected: ok('\\n\\"x', 8) },
  'u prefix': { input: `u'x'`, expected: ok('x', 4) },
  'adjacent literals': { input: `"a" 'b'\n"""c"""`, expected: ok('abc', 15) },
  'integers in every base with underscores': { input: '[1_000, 0x_ff, 0o17, 0b101, -7]', expected: ok([1000, 255, 15, 5, -7], 31) },
  'floats': { input: '(1.5, .5, 5., 1e3, -2.5E-2)', expected: ok([1.5, 0.5, 5, 1000, -0.025], 27) },
  'keywords, Python and JSON spelling': { input: '[True, False, None, true, false, null]', expected: ok([true, false, null, true, false, null], 38) },
  'parenthesized value is not a tuple': { input: '(3)', expected: ok(3, 3) },
  'one-element tuple and empty tuple': { input: '[(3,), ()]', expected: ok([[3], []], 10) },
  'dict with string and number keys, trailing comma': { input: `{'a': [1, {"b": None}], 2: 'x',}`, expected: ok({ a: [1, { b: null }], 2: 'x' }, 32) },
  'unterminated string is truncated': { input: '"abc', expected: err('unterminated string literal', 4, true) },
  'unterminated triple-quoted string': { input: "'''abc''", expected: err('unterminated string literal', 8, true) },
  'bad \\x escape': { input: String.raw`"\xZZ"`, expected: err('invalid \\x escape', 1, false) },
  'code point beyond unicode': { input: String.raw`"\U00110000"`, expected: err('invalid \\U escape', 1, false) },
  '\\N escape is refused': { input: String.raw`"\N{BULLET}"`, expected: err('\\N{...} escapes are not supported', 1, false) },
  'bytes literal is refused': { input: `b"x"`, expected: err('bytes literals are not supported', 0, false) },
  'a name is not a literal': { input: 'x', expected: err('expected a literal value, found x', 0, false) },
  'a set is not a dict': { input: '{1, 2}', expected: err("expected ':'", 2, false) },
  'unclosed list is truncated': { input: '[1, 2', expected: err("expected ']'", 5, true) },
  'number glued to a name': { input: '12abc', expected: err('not a supported number: 12a', 2, false) },
  'nesting limit': { input: '['.repeat(100), expected: err('nesting too deep', 65, false) },
  'a dict key that would set a prototype is refused': {
    input: `{'a': {'prototype': 1}}`,
    expected: err('argument key "prototype" is not allowed: keys named __proto__, constructor or prototype are refused at any depth (rename the argument)', 7, false),
  },
};

describe('parseValue', () => {
  it.each(Object.entries(VALUE_CASES))('%s', (_name, { input, expected }) => {
    expect(parseValue(input, 0)).toEqual(expected);
  });
});

const CALL_CASES: Record<string, { input: string; expected: Scan<unknown> }> = {
  'keyword call': {
    input: 'brave_search.call(query="x", n=2)',
    expected: ok({ path: ['brave_search', 'call'], positional: [], kwargs: { query: 'x', n: 2 } }, 33),
  },
  'positional then keyword, whitespace everywhere': {
    input: 'f ( "a" ,\n  b = 1 , )',
    expected: ok({ path: ['f'], positional: ['a'], kwargs: { b: 1 } }, 21),
  },
  'no arguments': { input: 'g()', expected: ok({ path: ['g'], positional: [], kwargs: {} }, 3) },
  '__proto__ as a keyword is refused (it would reach a tool as a prototype)': {
    input: 'f(__proto__=1)',
    expected: err('argument key "__proto__" is not allowed: keys named __proto__, constructor or prototype are refused at any depth (rename the argument)', 2, false),
  },
  'constructor as a keyword is refused': {
    input: 'f(a=1, constructor=1)',
    expected: err('argument key "constructor" is not allowed: keys named __proto__, constructor or prototype are refused at any depth (rename the argument)', 7, false),
  },
  'comparison is not a keyword argument': { input: 'f(a == 1)', expected: err('expected a literal value, found a', 2, false) },
  'duplicate keyword': { input: 'f(a=1, a=2)', expected: err('duplicate argument a', 7, false) },
  'positional after keyword': { input: 'f(a=1, 2)', expected: err('positional argument after keyword argument', 7, false) },
  'missing parenthesis': { input: 'f.call', expected: err("expected '('", 6, true) },
  'cut off inside the arguments': { input: 'f(a="x", b=', expected: err('expected a value', 11, true) },
};

describe('parseCall', () => {
  it.each(Object.entries(CALL_CASES))('%s', (_name, { input, expected }) => {
    expect(parseCall(input, 0)).toEqual(expected);
  });
});
