import { describe, expect, it } from 'vitest';
import { FormatError } from './errors';
import { parseConversation } from './conversation';
import { emittedText, renderIds, renderPrompt, renderSegments, segmentsToIds, segmentsToText } from './render';
import { loadTokenizer } from './tokenizer/load-node';
import type { Conversation, Message } from './types';
import { WORKED_EXAMPLE_PROMPT, WORKED_EXAMPLE_RESULT as RESULT } from '../../tests/fixtures/worked-example';

const tokenizer = loadTokenizer();

function workedExample(assistant: Message): Conversation {
  return {
    builtinTools: ['brave_search'],
    date: '11 August 2026',
    messages: [
      { role: 'user', content: 'What is the current population of Reykjavik?' },
      assistant,
      { role: 'ipython', content: RESULT },
    ],
  };
}

describe('FORMAT.md worked example', () => {
  it('renders byte for byte from the raw emitted text', () => {
    const conv = workedExample({ role: 'assistant', content: '', raw: '<|python_tag|>brave_search.call(query="Reykjavik population")', stop: 'eom' });
    expect(renderPrompt(conv)).toBe(WORKED_EXAMPLE_PROMPT);
  });

  it('renders byte for byte from a structured call (no raw text), written as the model writes it', () => {
    const conv = workedExample({
      role: 'assistant',
      content: '',
      tool_calls: [{ function: { name: 'brave_search', arguments: { query: 'Reykjavik population' } } }],
    });
    expect(renderPrompt(conv)).toBe(WORKED_EXAMPLE_PROMPT);
  });

  it('accepts `tool` as a synonym of ipython and an ISO date', () => {
    const conv = workedExample({ role: 'assistant', content: '', raw: '<|python_tag|>brave_search.call(query="Reykjavik population")' });
    conv.messages[2]!.role = 'tool';
    conv.date = '2026-08-11';
    expect(renderPrompt(conv)).toBe(WORKED_EXAMPLE_PROMPT);
  });

  it('gives special ids only at the structure, each piece encoded on its own', () => {
    const conv = workedExample({ role: 'assistant', content: '', raw: '<|python_tag|>brave_search.call(query="Reykjavik population")', stop: 'eom' });
    const ids = renderIds(conv, tokenizer);
    expect(ids.filter((id) => id >= 128000)).toEqual([
      128000, 128006, 128007, 128009, 128006, 128007, 128009, 128006, 128007, 128010, 128008, 128006, 128007, 128009, 128006, 128007,
    ]);
    expect(ids.slice(-4)).toEqual([128006, 78191, 128007, 271]);
  });
});

describe("Meta's tokenizer test", () => {
  it('system + user, no options → the listed ids', () => {
    const ids = renderIds(
      { messages: [{ role: 'system', content: 'This is a test sentence.' }, { role: 'user', content: 'This is a response.' }] },
      tokenizer,
    );
    expect(ids).toEqual([
      128000, 128006, 9125, 128007, 271, 2028, 374, 264, 1296, 11914, 13, 128009, 128006, 882, 128007, 271, 2028, 374, 264, 2077,
      13, 128009, 128006, 78191, 128007, 271,
    ]);
  });
});

const SYS = (content: string) => `<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n${content}<|eot_id|>`;
const USER_HI = '<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>';

describe('system block', () => {
  const cases: Record<string, { conv: Conversation; expected: string }> = {
    'no options: verbatim, no system block': {
      conv: { messages: [{ role: 'user', content: 'Hi' }], addGenerationPrompt: false },
      expected: `<|begin_of_text|>${USER_HI}`,
    },
    'empty lists count as not given': {
      conv: { messages: [{ role: 'user', content: 'Hi' }], builtinTools: [], tools: [], addGenerationPrompt: false },
      expected: `<|begin_of_text|>${USER_HI}`,
    },
    'date only: no Environment line': {
      conv: { messages: [{ role: 'user', content: 'Hi' }], date: '01 March 2026', addGenerationPrompt: false },
      expected: SYS('Cutting Knowledge Date: December 2023\nToday Date: 01 March 2026') + USER_HI,
    },
    'code_interpreter alone: Environment line, no Tools line, blank line': {
      conv: { messages: [{ role: 'user', content: 'Hi' }], builtinTools: ['code_interpreter'], date: '2026-03-01', addGenerationPrompt: false },
      expected: SYS('Environment: ipython\n\nCutting Knowledge Date: December 2023\nToday Date: 01 March 2026') + USER_HI,
    },
    'two built-ins and code_interpreter, caller system message after a blank line': {
      conv: {
        messages: [{ role: 'system', content: 'You are a helpful assistant.' }, { role: 'user', content: 'Hi' }],
        builtinTools: ['brave_search', 'code_interpreter', 'wolfram_alpha'],
        date: '11 August 2026',
        addGenerationPrompt: false,
      },
      expected:
        SYS(
          'Environment: ipython\nTools: brave_search, wolfram_alpha\n\nCutting Knowledge Date: December 2023\nToday Date: 11 August 2026\n\nYou are a helpful assistant.',
        ) + USER_HI,
    },
    'custom knowledge cutoff': {
      conv: { messages: [{ role: 'user', content: 'Hi' }], knowledgeCutoff: 'June 2024', date: '2026-12-25', addGenerationPrompt: false },
      expected: SYS('Cutting Knowledge Date: June 2024\nToday Date: 25 December 2026') + USER_HI,
    },
  };
  for (const [name, { conv, expected }] of Object.entries(cases)) {
    it(name, () => expect(renderPrompt(conv)).toBe(expected));
  }

  it("uses today's date when tools are given without a date", () => {
    const prompt = renderPrompt({ messages: [{ role: 'user', content: 'Hi' }], builtinTools: ['brave_search'] });
    const today = new Date();
    expect(prompt).toContain(`Today Date: ${String(today.getDate()).padStart(2, '0')} `);
    expect(prompt).toContain(` ${today.getFullYear()}<|eot_id|>`);
  });
});

describe('assistant history', () => {
  const base = (assistant: Message, results: Message[] = []): Conversation => ({
    messages: [{ role: 'user', content: 'Hi' }, assistant, ...results],
    addGenerationPrompt: false,
  });
  const A = '<|start_header_id|>assistant<|end_header_id|>\n\n';
  const cases: Record<string, { conv: Conversation; expected: string }> = {
    'plain answer ends with eot': {
      conv: base({ role: 'assistant', content: 'Hello!' }),
      expected: `<|begin_of_text|>${USER_HI}${A}Hello!<|eot_id|>`,
    },
    'raw is replayed verbatim, a literal terminator inside stays text': {
      conv: base({ role: 'assistant', content: 'ignored', raw: 'Say <|eot_id|> twice  ', stop: 'eot' }),
      expected: `<|begin_of_text|>${USER_HI}${A}Say <|eot_id|> twice  <|eot_id|>`,
    },
    'custom call, structured: JSON with Python separators, eot': {
      conv: base(
        { role: 'assistant', content: '', tool_calls: [{ function: { name: 'get_weather', arguments: '{"city":"Paris","days":[1,2]}' } }] },
        [{ role: 'ipython', content: { temperature_c: 21 } }],
      ),
      expected: `<|begin_of_text|>${USER_HI}${A}{"name": "get_weather", "parameters": {"city": "Paris", "days": [1, 2]}}<|eot_id|><|start_header_id|>ipython<|end_header_id|>\n\n{"temperature_c": 21}<|eot_id|>`,
    },
    'code interpreter, structured: the code itself after the tag, eom': {
      conv: base(
        { role: 'assistant', content: 'Computing.', tool_calls: [{ function: { name: 'code_interpreter', arguments: { code: 'print(2 ** 10)' } } }] },
        [{ role: 'ipython', content: '1024\n' }],
      ),
      expected: `<|begin_of_text|>${USER_HI}${A}Computing.<|python_tag|>print(2 ** 10)<|eom_id|><|start_header_id|>ipython<|end_header_id|>\n\n1024\n<|eot_id|>`,
    },
    'built-in call escapes backslash and double quote': {
      conv: base(
        { role: 'assistant', content: '', tool_calls: [{ function: { name: 'wolfram_alpha', arguments: { query: 'say "x\\y"' } } }] },
        [{ role: 'ipython', content: 'ok' }],
      ),
      expected: `<|begin_of_text|>${USER_HI}${A}<|python_tag|>wolfram_alpha.call(query="say \\"x\\\\y\\"")<|eom_id|><|start_header_id|>ipython<|end_header_id|>\n\nok<|eot_id|>`,
    },
    'two custom calls, two results in order': {
      conv: base(
        { role: 'assistant', content: '', raw: '{"name": "a", "parameters": {}}; {"name": "b", "parameters": {}}', stop: 'eot' },
        [{ role: 'ipython', content: 'A' }, { role: 'tool', content: 'B' }],
      ),
      expected: `<|begin_of_text|>${USER_HI}${A}{"name": "a", "parameters": {}}; {"name": "b", "parameters": {}}<|eot_id|><|start_header_id|>ipython<|end_header_id|>\n\nA<|eot_id|><|start_header_id|>ipython<|end_header_id|>\n\nB<|eot_id|>`,
    },
    'eom with nothing callable waits for one (error) result': {
      conv: base({ role: 'assistant', content: '', raw: 'hmm', stop: 'eom' }, [{ role: 'ipython', content: { error: 'nothing to call' } }]),
      expected: `<|begin_of_text|>${USER_HI}${A}hmm<|eom_id|><|start_header_id|>ipython<|end_header_id|>\n\n{"error": "nothing to call"}<|eot_id|>`,
    },
  };
  for (const [name, { conv, expected }] of Object.entries(cases)) {
    it(name, () => expect(renderPrompt(conv)).toBe(expected));
  }

  it('replays emitted ids as they were, even a non-canonical split of the same text', () => {
    const canonical = tokenizer.encode(' Hello');
    const split = [...tokenizer.encode(' Hel'), ...tokenizer.encode('lo')];
    expect(split).not.toEqual(canonical);
    const conv = base({ role: 'assistant', content: '', raw: ' Hello', ids: split, stop: 'eot' });
    const ids = renderIds(conv, tokenizer);
    expect(ids.slice(-1 - split.length, -1)).toEqual(split);
  });

  it('rejects emitted ids that do not decode to the raw text, or smuggle a special token', () => {
    const wrong = base({ role: 'assistant', content: '', raw: 'Hello', ids: tokenizer.encode('Hullo'), stop: 'eot' });
    expect(() => renderIds(wrong, tokenizer)).toThrow(FormatError);
    const smuggled = base({ role: 'assistant', content: '', raw: 'a<|eot_id|>', ids: [...tokenizer.encode('a'), 128009], stop: 'eot' });
    expect(() => renderIds(smuggled, tokenizer)).toThrow(/special token/);
  });
});

describe('turn order', () => {
  const u: Message = { role: 'user', content: 'q' };
  const call: Message = { role: 'assistant', content: '', raw: '<|python_tag|>brave_search.call(query="x")', stop: 'eom' };
  const r: Message = { role: 'ipython', content: 'r' };
  const a: Message = { role: 'assistant', content: 'done' };
  const cases: Record<string, { messages: Message[]; addGenerationPrompt?: boolean; error: RegExp | null }> = {
    'call then result then generation': { messages: [u, call, r], error: null },
    'ipython after a user turn': { messages: [u, r], error: /must follow an assistant turn that made a call/ },
    'ipython after a plain answer': { messages: [u, a, r], error: /must follow an assistant turn that made a call/ },
    'two results for one call': { messages: [u, call, r, r], error: /already have their results/ },
    'user turn before the result': { messages: [u, call, u], error: /still waiting for 1 ipython result/ },
    'generation prompt with a result missing': { messages: [u, call], error: /cannot prompt for generation/ },
    'ending on a call without generation prompt is fine': { messages: [u, call], addGenerationPrompt: false, error: null },
    'system message not first': { messages: [u, { role: 'system', content: 's' }], error: /may only come first/ },
  };
  for (const [name, { messages, addGenerationPrompt, error }] of Object.entries(cases)) {
    it(name, () => {
      const run = () => renderSegments({ messages, addGenerationPrompt });
      if (error) {
        expect(run).toThrow(FormatError);
        expect(run).toThrow(error);
      } else expect(run).not.toThrow();
    });
  }

  it('custom tools without a user turn is a clear error', () => {
    expect(() => renderSegments({ messages: [{ role: 'system', content: 's' }], tools: [{ name: 'f' }] })).toThrow(/first user turn/);
  });
});

describe('segmentsToIds', () => {
  it('encodes the "\\n\\n" after a header on its own (271), even when content starts with a newline', () => {
    const ids = segmentsToIds(renderSegments({ messages: [{ role: 'user', content: '\nx' }] }), tokenizer);
    expect(ids.slice(0, 5)).toEqual([128000, 128006, 882, 128007, 271]);
    expect(ids.slice(5, -5)).toEqual(tokenizer.encode('\nx'));
  });

  it('renders a 200,000-character message and a 200,000-id assistant turn (no argument spread to overflow)', () => {
    const huge = 'word '.repeat(40_000);
    const ids = renderIds({ messages: [{ role: 'user', content: huge }] }, tokenizer);
    expect(ids.length).toBeGreaterThan(40_000);
    expect(tokenizer.decode(ids.slice(5, -5))).toBe(huge);
    const emitted = new Array(200_000).fill(1734);
    const raw = tokenizer.decode(emitted);
    const replayed = renderIds({ messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: '', raw, ids: emitted, stop: 'eot' }], addGenerationPrompt: false }, tokenizer);
    expect(replayed.length).toBeGreaterThan(200_000);
  });
});

describe('an emitted message stored as its ids, terminator and calls', () => {
  const call = '<|python_tag|>brave_search.call(query="Reykjavik population")';
  const ids = [128010, ...tokenizer.encode('brave_search.call(query="Reykjavik population")')];
  const calls = [{ kind: 'builtin' as const, name: 'brave_search', arguments: { query: 'Reykjavik population' } }];

  it('renders as its ids, byte for byte the same prompt as its raw text; text needs the tokenizer', () => {
    const stored = workedExample({ role: 'assistant', content: '', ids, stop: 'eom', toolCalls: calls });
    const asText = workedExample({ role: 'assistant', content: '', raw: call, stop: 'eom' });
    expect(renderIds(stored, tokenizer)).toEqual(renderIds(asText, tokenizer));
    expect(segmentsToText(renderSegments(stored), tokenizer)).toBe(WORKED_EXAMPLE_PROMPT);
    expect(() => segmentsToText(renderSegments(stored))).toThrow(/needs the tokenizer/);
    expect(emittedText(stored.messages[1]!, tokenizer)).toBe(call);
  });

  it('a file may give ids alone with their terminator and calls; without either it is refused, naming the field', () => {
    const message = { role: 'assistant', content: '', ids, stop: 'eom', toolCalls: calls };
    const file = (m: object) => ({ messages: [{ role: 'user', content: 'q' }, m, { role: 'ipython', content: 'r' }] });
    expect(parseConversation(file(message)).messages[1]).toMatchObject({ ids, stop: 'eom', toolCalls: calls });
    expect(() => parseConversation(file({ ...message, stop: undefined }))).toThrow(/messages\[1\]\.stop: ids without raw text need their terminator/);
    expect(() => parseConversation(file({ ...message, toolCalls: undefined }))).toThrow(/messages\[1\]\.toolCalls: ids without raw text need the calls/);
    expect(() => parseConversation(file({ ...message, toolCalls: [{ name: 'x' }] }))).toThrow(/toolCalls: expected parsed calls/);
  });

  it('refuses stored calls whose arguments are not those of their kind', () => {
    const file = (call: object) => ({ messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: '', ids, stop: 'eom', toolCalls: [call] }, { role: 'ipython', content: 'r' }] });
    const refused = [
      { kind: 'code', name: 'code_interpreter', arguments: { source: 'print(1)' } },
      { kind: 'code', name: 'python', arguments: { code: 'print(1)' } },
      { kind: 'invalid', name: '', arguments: { text: '{"name": ' } },
      { kind: 'custom', name: 'f', arguments: [1] },
      { kind: 'other', name: 'f', arguments: {} },
    ];
    for (const call of refused) expect(() => parseConversation(file(call)), JSON.stringify(call)).toThrow(/messages\[1\]\.toolCalls: expected parsed calls/);
    const kept = [
      { kind: 'code', name: 'code_interpreter', arguments: { code: 'print(1)' } },
      { kind: 'invalid', name: '', arguments: { text: '{"name": ', error: 'incomplete JSON' } },
      { kind: 'builtin', name: 'photo_search', arguments: { query: 'cats', limit: 3 } },
    ];
    for (const call of kept) expect(parseConversation(file(call)).messages[1]!.toolCalls).toEqual([call]);
  });
});
