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
    'search results: titled sources with their host; a non-web URL is not a link': {
      name: 'brave_search',
      content:
        '{"query": "Reykjavik", "results": [{"title": "Reykjavík", "url": "https://en.wikipedia.org/wiki/Reykjav%C3%ADk", "description": "The capital.", "age": "2 days ago"}, ' +
        '{"title": "Trap", "url": "javascript:alert(1)", "description": ""}]}',
      isError: false,
      expected: [
        {
          label: '2 sources',
          text: expect.stringContaining('Reykjav'),
          sources: [
            { title: 'Reykjavík', url: 'https://en.wikipedia.org/wiki/Reykjav%C3%ADk', host: 'en.wikipedia.org', description: 'The capital.', age: '2 days ago' },
            { title: 'Trap', url: null, host: 'javascript:alert(1)', description: '' },
          ],
        },
      ],
    },
    'search results that name their source say so': {
      name: 'brave_search',
      content: '{"query": "q", "source": "local index", "results": [{"title": "T", "url": "https://www.example.org/a", "description": "d"}]}',
      isError: false,
      expected: [
        { label: 'note', text: 'results from local index' },
        { label: '1 source', text: expect.any(String), sources: [{ title: 'T', url: 'https://www.example.org/a', host: 'example.org', description: 'd' }] },
      ],
    },
    "Wolfram|Alpha's answer as pods": {
      name: 'wolfram_alpha',
      content: 'Query:\n"population of Reykjavik"\n\nInput interpretation:\nReykjavík | population\n\nResult:\n139875 people (2024 estimate)\n\nWolfram|Alpha website result for "population of Reykjavik":\nhttps://www.wolframalpha.com/input?i=population+of+Reykjavik\n',
      isError: false,
      expected: [
        {
          label: 'Wolfram|Alpha',
          text: expect.any(String),
          pods: [
            { title: 'Query', text: '"population of Reykjavik"' },
            { title: 'Input interpretation', text: 'Reykjavík | population' },
            { title: 'Result', text: '139875 people (2024 estimate)' },
            { title: 'Wolfram|Alpha website result for "population of Reykjavik"', text: 'https://www.wolframalpha.com/input?i=population+of+Reykjavik' },
          ],
        },
      ],
    },
    'a Wolfram error stays an error': {
      name: 'wolfram_alpha', content: '{"error": "Wolfram|Alpha did not understand the input"}', isError: true,
      expected: [{ label: 'error', text: 'Wolfram|Alpha did not understand the input', error: true }],
    },
  };
  for (const [title, { name, content, isError, expected }] of Object.entries(cases)) {
    it(title, () => expect(resultSections(name, content, isError)).toEqual(expected));
  }

  it('names local math (not Wolfram|Alpha) on pods it answered', () => {
    const text = 'Query:\n"123 * 45"\n\nInput:\n123×45\n\nResult:\n5535';
    expect(resultSections('wolfram_alpha', text, false, 'local math').map((s) => s.label)).toEqual(['local math']);
    expect(resultSections('wolfram_alpha', text, false).map((s) => s.label)).toEqual(['Wolfram|Alpha']);
  });
});
