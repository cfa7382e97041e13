import { describe, expect, it } from 'vitest';
import { parsePieces } from './parse';
import { visibleText } from './visible-text';

describe('visibleText with calls read', () => {
  const cases: Record<string, { raw: string; expected: string }> = {
    'plain text': { raw: 'The answer is **42**.', expected: 'The answer is **42**.' },
    "the tag's characters in prose are text (the real tag splits the pieces upstream)": { raw: 'Write <|python_tag|> to call.', expected: 'Write <|python_tag|> to call.' },
    'a lone < is kept mid-text': { raw: 'a < b and', expected: 'a < b and' },
    'JSON call from the start': { raw: '{"name": "get_weather", "par', expected: '' },
    'JSON call after prose': { raw: 'Checking.\n{"name": "get', expected: 'Checking.' },
    'function tag': { raw: '<function=get_weather>{"city"', expected: '' },
    'a function tag still being written': { raw: 'Sure <func', expected: 'Sure' },
    'python list call': { raw: '[get_weather(city="Paris")', expected: '' },
    'brace inside a sentence stays': { raw: 'use {x} here', expected: 'use {x} here' },
    'leading whitespace waits (a call block may follow)': { raw: '  {"name"', expected: '' },
    'trailing whitespace waits for more text': { raw: 'Hello there  ', expected: 'Hello there' },
  };
  for (const [name, { raw, expected }] of Object.entries(cases)) {
    it(name, () => expect(visibleText([raw], { readCalls: true })).toBe(expected));
  }

  it('after the python tag the prose before it is final (trimmed); the call part never shows', () => {
    expect(visibleText(['Let me look. ', 'brave_search.call(query="x")'], { readCalls: true })).toBe('Let me look.');
  });

  it('a tail that could begin a stop string waits, in either mode', () => {
    expect(visibleText(['Hello EN'], { readCalls: true, stops: ['END'] })).toBe('Hello');
    expect(visibleText(['Hello EN'], { readCalls: false, stops: ['END'] })).toBe('Hello ');
  });

  it('plain text mode shows everything, the tag by name', () => {
    expect(visibleText(['{"a": 1}', 'x'], { readCalls: false })).toBe('{"a": 1}<|python_tag|>x');
  });

  it('while a reply grows, what is shown is always a prefix of what the parser reads from the whole reply', () => {
    const replies = [
      'The weather is fine.\nI will check.\n{"name": "get_weather", "parameters": {"city": "Paris"}}',
      'Here is an example: <b>bold</b> and <function=x>{"a": 1}</function>',
      'Plain answer with [a link](http://x) and {braces}.',
    ];
    for (const reply of replies) {
      const final = parsePieces([reply], 'eot').content;
      for (let n = 0; n <= reply.length; n++) expect(final.startsWith(visibleText([reply.slice(0, n)], { readCalls: true }))).toBe(true);
    }
  });
});
