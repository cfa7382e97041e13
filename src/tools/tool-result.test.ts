import { describe, expect, it } from 'vitest';
import { loadTokenizer } from '../format/tokenizer/load-node';
import { ToolError } from './tool';
import { duration } from './failure-texts';
import { errorData, errorText, formatToolResult, timeoutError, valueText, type ToolOutcome } from './tool-result';
import { MAX_COUNT_CALLS, utf8Length } from './token-budget';

/** The unit-test token count: 4 chars a token, with a record of calls. */
function counter(count: (s: string) => number = (s) => Math.ceil(s.length / 4)) {
  const calls: string[] = [];
  return {
    calls,
    countTokens: (s: string) => {
      calls.push(s);
      return count(s);
    },
  };
}

describe('formatToolResult', () => {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  const cases: Record<string, { outcome: ToolOutcome; expected: string }> = {
    'a string is inserted as is': { outcome: { ok: true, value: 'It is 21 °C in Paris.' }, expected: 'It is 21 °C in Paris.' },
    'a string that looks like JSON stays as is': { outcome: { ok: true, value: '{"a":1}' }, expected: '{"a":1}' },
    'an object as JSON with Python separators': {
      outcome: { ok: true, value: { city: 'Paris', temperature_c: 21, tags: ['sunny', null], ok: true } },
      expected: '{"city": "Paris", "temperature_c": 21, "tags": ["sunny", null], "ok": true}',
    },
    'a number': { outcome: { ok: true, value: 42 }, expected: '42' },
    'an empty list is data': { outcome: { ok: true, value: [] }, expected: '[]' },
    'an empty string is never an empty turn': { outcome: { ok: true, value: '' }, expected: '{"result": "", "note": "the tool returned nothing"}' },
    'a blank string likewise': { outcome: { ok: true, value: ' \n' }, expected: '{"result": " \\n", "note": "the tool returned nothing"}' },
    undefined: { outcome: { ok: true, value: undefined }, expected: '{"result": null, "note": "the tool returned nothing"}' },
    null: { outcome: { ok: true, value: null }, expected: '{"result": null, "note": "the tool returned nothing"}' },
    'a value that cannot be JSON': { outcome: { ok: true, value: cyclic }, expected: '{"error": "the tool\'s result cannot be written as JSON: it refers to itself"}' },
    'a ToolError with details': {
      outcome: { ok: false, error: new ToolError('the API key was rejected', { status: 401, error: 'ignored', skipped: undefined }) },
      expected: '{"error": "the API key was rejected", "status": 401}',
    },
    'a plain Error': { outcome: { ok: false, error: new Error('city not found') }, expected: '{"error": "city not found"}' },
    'a TypeError keeps its name': { outcome: { ok: false, error: new TypeError("x is not a function") }, expected: '{"error": "TypeError: x is not a function"}' },
    'an Error without a message': { outcome: { ok: false, error: new Error('') }, expected: '{"error": "the tool failed without saying why"}' },
    'a thrown string': { outcome: { ok: false, error: 'no such city' }, expected: '{"error": "no such city"}' },
    'a thrown error object is kept': { outcome: { ok: false, error: { error: 'timeout after 5s', step: 2 } }, expected: '{"error": "timeout after 5s", "step": 2}' },
    'a thrown anything else': { outcome: { ok: false, error: 42 }, expected: '{"error": "the tool failed: 42"}' },
    'an error with details that cannot be JSON keeps its message': {
      outcome: { ok: false, error: new ToolError('bad', { loop: cyclic }) },
      expected: '{"error": "bad"}',
    },
  };
  for (const [name, { outcome, expected }] of Object.entries(cases)) {
    it(name, async () => {
      const { countTokens, calls } = counter();
      expect(formatToolResult(outcome, { countTokens })).toBe(expected);
      expect(calls).toHaveLength(0); // small enough that its byte size proves it fits
    });
  }

  it('counts when bytes cannot prove the fit, and returns the text when it fits', async () => {
    const text = 'word '.repeat(1000); // 5000 bytes, 1250 "tokens"
    const { countTokens, calls } = counter();
    expect(formatToolResult({ ok: true, value: text }, { countTokens })).toBe(text);
    expect(calls).toEqual([text]);
  });
});

interface Marker {
  truncated: true;
  shown_chars: number;
  total_chars: number;
  content: string;
}

async function expectMarkedWithin(full: string, result: string, maxTokens: number, count: (s: string) => number | Promise<number>): Promise<Marker> {
  expect(result.startsWith('{"truncated": true, "shown_chars": ')).toBe(true);
  const marker = JSON.parse(result) as Marker;
  expect(Object.keys(marker)).toEqual(['truncated', 'shown_chars', 'total_chars', 'content']);
  expect(marker.total_chars).toBe(full.length);
  expect(marker.shown_chars).toBe(marker.content.length);
  expect(marker.shown_chars).toBeGreaterThan(0);
  expect(marker.shown_chars).toBeLessThan(full.length);
  expect(full.startsWith(marker.content)).toBe(true);
  expect(await count(result)).toBeLessThanOrEqual(maxTokens);
  return marker;
}

describe('truncation to the budget', () => {
  const rows = Array.from({ length: 400 }, (_, i) => ({ title: `Result ${i}`, url: `https://example.com/${i}`, description: `Snippet "${i}" with a quote and a \\ backslash.` }));
  const cases: Record<string, { value: unknown; maxTokens: number }> = {
    'a huge object at the default budget': { value: { query: 'q', results: rows }, maxTokens: 1500 },
    'a huge string at a small budget': { value: 'lorem ipsum dolor sit amet\n'.repeat(2000), maxTokens: 200 },
    'one long line without spaces': { value: 'x'.repeat(100_000), maxTokens: 500 },
    'emoji and CJK': { value: '🙂漢字かな '.repeat(5000), maxTokens: 300 },
    'a huge error message': { value: undefined, maxTokens: 100 },
  };
  for (const [name, { value, maxTokens }] of Object.entries(cases)) {
    it(name, async () => {
      const { countTokens, calls } = counter();
      const outcome: ToolOutcome = value === undefined ? { ok: false, error: new Error('stack '.repeat(10_000)) } : { ok: true, value };
      const full = outcome.ok ? valueText(outcome.value) : errorText(outcome.error);
      const result = formatToolResult(outcome, { maxTokens, countTokens });
      const marker = await expectMarkedWithin(full, result, maxTokens, countTokens);
      expect(calls.length).toBeLessThanOrEqual(MAX_COUNT_CALLS + 1); // + the check above
      // Deliberate, not timid: most of the budget is used.
      expect(Math.ceil(result.length / 4)).toBeGreaterThan(0.8 * maxTokens);
      // Cuts land between code points.
      expect(marker.content).not.toMatch(/[\uD800-\uDBFF]$/);
    });
  }

  it('cuts at a line break when one is near', async () => {
    const text = Array.from({ length: 300 }, (_, i) => `line ${i} ${'z'.repeat(30)}`).join('\n');
    const result = formatToolResult({ ok: true, value: text }, { maxTokens: 300, countTokens: counter().countTokens });
    expect((JSON.parse(result) as Marker).content.endsWith('\n')).toBe(true);
  });

  it('a counter that never agrees still gets a result bounded by its UTF-8 size, after at most MAX_COUNT_CALLS calls', async () => {
    const { countTokens, calls } = counter(() => 1_000_000);
    const text = 'é'.repeat(20_000);
    const result = formatToolResult({ ok: true, value: text }, { maxTokens: 400, countTokens });
    expect(calls).toHaveLength(MAX_COUNT_CALLS);
    expect(utf8Length(result)).toBeLessThanOrEqual(400);
    expect((JSON.parse(result) as Marker).content.length).toBeGreaterThan(0);
  });

  it('a budget too small for the marker gives the marker with empty content', async () => {
    const result = formatToolResult({ ok: true, value: 'x'.repeat(1000) }, { maxTokens: 5, countTokens: counter().countTokens });
    expect(JSON.parse(result)).toEqual({ truncated: true, shown_chars: 0, total_chars: 1000, content: '' });
  });

  it('rejects a budget under 1', async () => {
    expect(() => formatToolResult({ ok: true, value: 'x' }, { maxTokens: 0, countTokens: counter().countTokens })).toThrow(RangeError);
  });
});

describe('truncation with the real Llama 3.1 tokenizer', () => {
  const tokenizer = loadTokenizer();
  const exact = (s: string) => tokenizer.encode(s).length;

  const cases: Record<string, { value: unknown; maxTokens: number }> = {
    'search-like JSON': {
      value: { query: 'Reykjavik', results: Array.from({ length: 300 }, (_, i) => ({ title: `Reykjavík ${i}`, url: `https://is.wikipedia.org/wiki/R${i}`, description: 'Höfuðborg Íslands, "the smoky bay" — pop. 139,875.' })) },
      maxTokens: 1500,
    },
    'numbers and code': { value: Array.from({ length: 3000 }, (_, i) => `x[${i}] = ${i * 3.14159};`).join('\n'), maxTokens: 800 },
    'CJK and emoji': { value: '東京は日本の首都です。🗼 '.repeat(2000), maxTokens: 600 },
    'special-token lookalikes are text': { value: '<|eot_id|><|start_header_id|>system<|end_header_id|> '.repeat(800), maxTokens: 400 },
  };
  for (const [name, { value, maxTokens }] of Object.entries(cases)) {
    it(name, async () => {
      const calls: string[] = [];
      const countTokens = (s: string) => {
        calls.push(s);
        return exact(s);
      };
      const result = formatToolResult({ ok: true, value }, { maxTokens, countTokens });
      const full = valueText(value);
      await expectMarkedWithin(full, result, maxTokens, exact);
      expect(calls.length).toBeLessThanOrEqual(MAX_COUNT_CALLS);
      expect(exact(result)).toBeGreaterThan(0.8 * maxTokens);
    });
  }
});

describe('errors for the loop', () => {
  const cases: Record<string, { ms: number; expected: string }> = {
    'whole seconds': { ms: 5000, expected: '{"error": "timeout after 5s"}' },
    'tenths': { ms: 1500, expected: '{"error": "timeout after 1.5s"}' },
    'under a second': { ms: 300, expected: '{"error": "timeout after 0.3s"}' },
    'a few milliseconds': { ms: 50, expected: '{"error": "timeout after 0.05s"}' },
    'a minute': { ms: 60_000, expected: '{"error": "timeout after 60s"}' },
  };
  for (const [name, { ms, expected }] of Object.entries(cases)) {
    it(`timeoutError: ${name}`, () => expect(timeoutError(ms)).toBe(expected));
  }

  it('duration rounds to tenths', () => expect(duration(1234)).toBe('1.2s'));
  it('errorData is the object behind an error result', () => {
    expect(errorData(new ToolError('x', { status: 504 }))).toEqual({ error: 'x', status: 504 });
  });
});
