import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findForbiddenKey } from './argument-keys';
import { parseAssistantOutput } from './parse';
import type { ToolCall } from './types';
import { pythonString, writeBuiltinCall, writeCustomCall } from './write-call';

const TAG = '<|python_tag|>';
const EOM = '<|eom_id|>';
const EOT = '<|eot_id|>';

const BUILTIN_CASES: Record<string, { input: [string, Record<string, unknown>]; expected: string }> = {
  'design example': {
    input: ['brave_search', { query: 'Reykjavik population' }],
    expected: 'brave_search.call(query="Reykjavik population")',
  },
  'backslash and double quote escaped': {
    input: ['wolfram_alpha', { query: 'say "hi" \\ bye' }],
    expected: 'wolfram_alpha.call(query="say \\"hi\\" \\\\ bye")',
  },
  'newline, CR, tab and control characters escaped': {
    input: ['brave_search', { query: 'a\nb\r\tc\u0001\u007f' }],
    expected: 'brave_search.call(query="a\\nb\\r\\tc\\x01\\x7f")',
  },
  'single quote and unicode kept literal': {
    input: ['brave_search', { query: "l'été 天気 😀" }],
    expected: 'brave_search.call(query="l\'été 天気 😀")',
  },
  'lone surrogate escaped': {
    input: ['brave_search', { query: 'x\ud800y' }],
    expected: 'brave_search.call(query="x\\ud800y")',
  },
  'non-string arguments as Python literals': {
    input: ['brave_search', { query: 'x', count: 5, ratio: -0.25, safe: true, strict: false, lang: null, tags: ['a', 1], opts: { k: 'v' }, skip: undefined }],
    expected: 'brave_search.call(query="x", count=5, ratio=-0.25, safe=True, strict=False, lang=None, tags=["a", 1], opts={"k": "v"})',
  },
  'non-finite number as None': {
    input: ['wolfram_alpha', { query: 'x', limit: Number.POSITIVE_INFINITY }],
    expected: 'wolfram_alpha.call(query="x", limit=None)',
  },
  'no arguments': {
    input: ['brave_search', {}],
    expected: 'brave_search.call()',
  },
};

const CUSTOM_CASES: Record<string, { input: [string, Record<string, unknown>]; expected: string }> = {
  'design example': {
    input: ['get_weather', { city: 'Paris' }],
    expected: '{"name": "get_weather", "parameters": {"city": "Paris"}}',
  },
  'nested values with Python separators': {
    input: ['book', { legs: [{ from: 'CDG', to: 'KEF' }], pax: 2, meal: null }],
    expected: '{"name": "book", "parameters": {"legs": [{"from": "CDG", "to": "KEF"}], "pax": 2, "meal": null}}',
  },
  'empty arguments': {
    input: ['get_time', {}],
    expected: '{"name": "get_time", "parameters": {}}',
  },
  'unicode kept literal': {
    input: ['translate', { text: 'Grüße 👋' }],
    expected: '{"name": "translate", "parameters": {"text": "Grüße 👋"}}',
  },
};

describe('writeBuiltinCall', () => {
  it.each(Object.entries(BUILTIN_CASES))('%s', (_name, { input, expected }) => {
    expect(writeBuiltinCall(...input)).toBe(expected);
  });

  it.each([
    ['name with a dot', 'brave.search', {}],
    ['empty name', '', {}],
    ['argument key with a dash', 'brave_search', { 'max-results': 3 }],
  ] as const)('rejects a %s', (_name, tool, args) => {
    expect(() => writeBuiltinCall(tool, args)).toThrow(TypeError);
  });
});

describe('writeCustomCall', () => {
  it.each(Object.entries(CUSTOM_CASES))('%s', (_name, { input, expected }) => {
    expect(writeCustomCall(...input)).toBe(expected);
  });
});

describe('a code call', () => {
  it('is the code itself after the tag: it round-trips with no wrapper', () => {
    const code = 'import math\n\nfor i in range(3):\n    print(i, "\\n")';
    expect(parseAssistantOutput(`${TAG}${code}${EOM}`).toolCalls).toEqual([
      { kind: 'code', name: 'code_interpreter', arguments: { code } },
    ]);
  });
});

describe('pythonString', () => {
  it('writes the empty string', () => {
    expect(pythonString('')).toBe('""');
  });
});

// ── round trips ──────────────────────────────────────────────────────────────────────────────

const identifier = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/);
const toolName = identifier.filter((n) => n !== 'code_interpreter');
const tricky = fc
  .array(
    fc.oneof(
      fc.constantFrom('"', "'", '"""', "'''", '\\', '\\n', '\n', '\r', '\t', ')', '(', ',', '=', TAG, EOM, EOT, '\u0000', 'é', '😀', '\ud800', '\udfff', 'r"'),
      fc.string({ unit: 'binary', maxLength: 6 }),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));
const stringArg = fc.oneof(tricky, fc.string({ unit: 'binary', maxLength: 30 }));
/** JSON-safe values as JSON reads them back (no -0, no undefined). */
const jsonSafe = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);

/**
 * Parsing a written call gives the call back — unless its arguments carry a key that would change a
 * prototype (fast-check generates `__proto__` and `constructor` on purpose): then no call of that
 * kind comes out and no key like it reaches anything (a custom call is one invalid call saying why;
 * a built-in call under a name the parser does not know is read as code, as any failed one is).
 */
function expectRoundTrip(calls: ToolCall[], kind: 'builtin' | 'custom', name: string, args: Record<string, unknown>): void {
  if (findForbiddenKey(args) === null) {
    expect(calls).toEqual([{ kind, name, arguments: args }]);
    return;
  }
  expect(calls).toHaveLength(1);
  expect(calls[0]!.kind).not.toBe(kind);
  expect(findForbiddenKey(calls[0]!.arguments)).toBeNull();
  if (kind === 'custom') expect(calls[0]).toMatchObject({ kind: 'invalid', name, arguments: { error: expect.stringMatching(/^argument key ".*" is not allowed/) } });
}

describe('write → parse round trip', () => {
  it('built-in calls with string arguments', () => {
    fc.assert(
      fc.property(toolName, fc.dictionary(identifier, stringArg, { maxKeys: 4 }), (name, args) => {
        const parsed = parseAssistantOutput(`${TAG}${writeBuiltinCall(name, args)}${EOM}`);
        expect(parsed).toEqual({ content: '', toolCalls: [{ kind: 'builtin', name, arguments: args }], stop: 'eom' });
      }),
      { numRuns: 1000 },
    );
  });

  it('built-in calls with JSON-safe arguments', () => {
    fc.assert(
      fc.property(toolName, fc.dictionary(identifier, jsonSafe, { maxKeys: 4 }), (name, args) => {
        const parsed = parseAssistantOutput(`${TAG}${writeBuiltinCall(name, args)}${EOM}`);
        expectRoundTrip(parsed.toolCalls, 'builtin', name, args);
      }),
      { numRuns: 500 },
    );
  });

  it('custom calls with JSON-safe arguments, with or without the tag', () => {
    const name = fc.oneof(identifier, fc.string({ minLength: 1, maxLength: 20 })).filter((n) => n.trim() !== '');
    const args = fc.dictionary(fc.string({ maxLength: 8 }), jsonSafe, { maxKeys: 5 });
    fc.assert(
      fc.property(name, args, fc.boolean(), fc.constantFrom(EOT, EOM), (n, a, tagged, end) => {
        const parsed = parseAssistantOutput(`${tagged ? TAG : ''}${writeCustomCall(n, a)}${end}`);
        expect(parsed.content).toBe('');
        expectRoundTrip(parsed.toolCalls, 'custom', n, a);
      }),
      { numRuns: 1000 },
    );
  });
});
