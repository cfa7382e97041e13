import { describe, expect, it } from 'vitest';
import { callDisplay, resultSections } from './tool-display';

describe('callDisplay', () => {
  it('code shows the code, summarised by its first line', () => {
    expect(callDisplay({ kind: 'code', name: 'code_interpreter', arguments: { code: '\nx = 6 * 7\nprint(x)' } })).toEqual({
      name: 'code_interpreter', summary: 'x = 6 * 7', body: '\nx = 6 * 7\nprint(x)', language: 'python',
    });
  });
  it('a built-in shows its query', () => {
    expect(callDisplay({ kind: 'builtin', name: 'brave_search', arguments: { query: 'Reykjavik population' } })).toMatchObject({
      summary: '"Reykjavik population"', body: 'Reykjavik population',
    });
  });
  it('a custom call shows its arguments as JSON', () => {
    expect(callDisplay({ kind: 'custom', name: 'get_weather', arguments: { city: 'Paris' } })).toMatchObject({
      name: 'get_weather', body: '{\n  "city": "Paris"\n}', language: 'json',
    });
  });
});

describe('resultSections', () => {
  const cases: Record<string, { name: string; content: string; isError: boolean; expected: unknown }> = {
    'code: stdout and value apart': {
      name: 'code_interpreter', content: '{"stdout": "42\\n", "result": "None"}', isError: false,
      expected: [{ label: 'stdout', text: '42\n' }, { label: 'value', text: 'None' }],
    },
    'code: a traceback is an error': {
      name: 'code_interpreter', content: '{"error": "Traceback...\\nZeroDivisionError"}', isError: false,
      expected: [{ label: 'error', text: 'Traceback...\nZeroDivisionError', error: true }],
    },
    'an error result with details': {
      name: 'brave_search', content: '{"error": "no key", "setup": "set BRAVE_API_KEY"}', isError: true,
      expected: [{ label: 'error', text: 'no key', error: true }, { label: 'details', text: '{\n  "setup": "set BRAVE_API_KEY"\n}' }],
    },
    'plain text': { name: 'get_weather', content: 'sunny', isError: false, expected: [{ label: 'result', text: 'sunny' }] },
    'JSON pretty-printed': { name: 'x', content: '{"a": 1}', isError: false, expected: [{ label: 'result', text: '{\n  "a": 1\n}' }] },
  };
  for (const [title, { name, content, isError, expected }] of Object.entries(cases)) {
    it(title, () => expect(resultSections(name, content, isError)).toEqual(expected));
  }
});
