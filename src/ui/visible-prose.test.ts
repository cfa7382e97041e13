import { describe, expect, it } from 'vitest';
import { finishedProse, streamingProse } from './visible-prose';

describe('streamingProse', () => {
  const cases: Record<string, { raw: string; expected: string }> = {
    'plain text': { raw: 'The answer is **42**.', expected: 'The answer is **42**.' },
    'prose then python_tag': { raw: 'Let me search.<|python_tag|>brave_search.call(query="x")', expected: 'Let me search.' },
    'a partial tag at the end': { raw: 'Let me search.<|pyth', expected: 'Let me search.' },
    'a lone < is kept mid-text': { raw: 'a < b and', expected: 'a < b and' },
    'JSON call from the start': { raw: '{"name": "get_weather", "par', expected: '' },
    'JSON call after prose': { raw: 'Checking.\n{"name": "get', expected: 'Checking.' },
    'function tag': { raw: '<function=get_weather>{"city"', expected: '' },
    'python list call': { raw: '[get_weather(city="Paris")', expected: '' },
    'brace inside a sentence stays': { raw: 'use {x} here', expected: 'use {x} here' },
  };
  for (const [name, { raw, expected }] of Object.entries(cases)) {
    it(name, () => expect(streamingProse(raw)).toBe(expected));
  }
});

describe('finishedProse', () => {
  it('drops a built-in call, keeps the prose', () => {
    expect(finishedProse('Searching.<|python_tag|>brave_search.call(query="x")', 'eom')).toBe('Searching.');
  });
  it('a custom JSON call is not prose', () => {
    expect(finishedProse('{"name": "get_weather", "parameters": {"city": "Paris"}}', 'eot')).toBe('');
  });
  it('a plain answer is verbatim', () => {
    expect(finishedProse('It is **sunny**.', 'eot')).toBe('It is **sunny**.');
  });
  it('an aborted step keeps its text', () => {
    expect(finishedProse('Half an ans', 'abort')).toBe('Half an ans');
  });
});
