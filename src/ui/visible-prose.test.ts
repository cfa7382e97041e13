import { describe, expect, it } from 'vitest';
import { streamingProse } from './visible-prose';

describe('streamingProse', () => {
  const cases: Record<string, { raw: string; expected: string }> = {
    'plain text': { raw: 'The answer is **42**.', expected: 'The answer is **42**.' },
    'the tag\'s characters in prose are text (the real tag ends the prose part upstream)': { raw: 'Write <|python_tag|> to call.', expected: 'Write <|python_tag|> to call.' },
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
