import { describe, expect, it } from 'vitest';
import { WORKED_EXAMPLE_PROMPT, WORKED_EXAMPLE_RESULT } from '../../tests/fixtures/worked-example';
import { FormatError } from './errors';
import { renderIds } from './render';
import { loadTokenizer } from './tokenizer/load-node';
import { Transcript, type SystemOptions } from './transcript';
import type { Message, TextTokenizer, ToolCall } from './types';

const tokenizer = loadTokenizer();

const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
const emittedCall = '<|python_tag|>brave_search.call(query="Reykjavik population")';
const searchCall: ToolCall = { kind: 'builtin', name: 'brave_search', arguments: { query: 'Reykjavik population' } };

const cases: Record<string, { options: SystemOptions; messages: Message[] }> = {
  'no options: the messages as given': {
    options: {},
    messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello!' }, { role: 'user', content: 'Bye' }],
  },
  'built-in tools, the caller system message merged into the system block': {
    options: { builtinTools: ['brave_search', 'code_interpreter'], date: '11 August 2026' },
    messages: [
      { role: 'system', content: 'Answer in French.' },
      { role: 'user', content: 'Population of Reykjavik?' },
      { role: 'assistant', content: '', raw: emittedCall, stop: 'eom' },
      { role: 'tool', content: WORKED_EXAMPLE_RESULT },
    ],
  },
  'custom tools written into the first user turn, a structured call, a result object': {
    options: { tools: [weather], date: '2026-08-11' },
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: '', tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }] },
      { role: 'ipython', content: { temperature: 21 } },
      { role: 'assistant', content: 'It is 21 degrees.' },
      { role: 'user', content: 'And tomorrow?' },
    ],
  },
};

function emittedIds(raw: string, t: TextTokenizer): number[] {
  return raw.split('<|python_tag|>').flatMap((piece, i) => (i > 0 ? [128010, ...t.encode(piece)] : t.encode(piece)));
}

describe('Transcript', () => {
  for (const [name, { options, messages }] of Object.entries(cases)) {
    it(`${name}: equals renderIds, built at once, grown one message at a time, and sliced`, () => {
      const whole = new Transcript(tokenizer, options, messages);
      expect(whole.ids).toEqual(renderIds({ ...options, messages, addGenerationPrompt: false }, tokenizer));
      expect(whole.prompt()).toEqual(renderIds({ ...options, messages }, tokenizer));

      const grown = new Transcript(tokenizer, options, messages.slice(0, 1));
      for (const m of messages.slice(1)) grown.append(m);
      expect(grown.ids).toEqual(whole.ids);

      for (let n = 1; n <= messages.length; n++) {
        expect(whole.slice(n).ids).toEqual(renderIds({ ...options, messages: messages.slice(0, n), addGenerationPrompt: false }, tokenizer));
      }
    });
  }

  it('appends an emitted step as its ids and terminator, and the worked example prompt follows', () => {
    const t = new Transcript(tokenizer, { builtinTools: ['brave_search'], date: '11 August 2026' }, [{ role: 'user', content: 'What is the current population of Reykjavik?' }]);
    t.appendEmitted({ role: 'assistant', content: '', ids: emittedIds(emittedCall, tokenizer), stop: 'eom', toolCalls: [searchCall] });
    t.append({ role: 'ipython', content: WORKED_EXAMPLE_RESULT });
    expect(t.text(t.prompt())).toBe(WORKED_EXAMPLE_PROMPT);
  });

  it('custom tools wait for the first user turn when created empty', () => {
    const t = new Transcript(tokenizer, { tools: [weather], date: '11 August 2026' });
    t.append({ role: 'user', content: 'Weather in Paris?' });
    expect(t.ids).toEqual(renderIds({ tools: [weather], date: '11 August 2026', messages: [{ role: 'user', content: 'Weather in Paris?' }], addGenerationPrompt: false }, tokenizer));
  });

  it('checks turn order per appended message and before a prompt', () => {
    const t = new Transcript(tokenizer, {}, [{ role: 'user', content: 'Hi' }]);
    expect(() => t.append({ role: 'ipython', content: 'x' })).toThrow(FormatError);
    t.appendEmitted({ role: 'assistant', content: '', ids: emittedIds(emittedCall, tokenizer), stop: 'eom', toolCalls: [searchCall] });
    expect(() => t.prompt()).toThrow(/waiting for 1 ipython result/);
    expect(() => t.append({ role: 'user', content: 'again' })).toThrow(/waiting for 1 ipython result/);
  });

  it('refuses emitted ids with a structural special token, and a slice past the end', () => {
    const t = new Transcript(tokenizer, {}, [{ role: 'user', content: 'Hi' }]);
    expect(() => t.appendEmitted({ role: 'assistant', content: '', ids: [128009], stop: 'eot', toolCalls: [] })).toThrow(/special token/);
    expect(() => t.slice(2)).toThrow(RangeError);
  });

  it.each(Object.entries(cases))('%s: per-message token counts add up to the transcript', (_name, { options, messages }) => {
    const t = new Transcript(tokenizer, options, messages);
    expect(t.fixedTokens + t.messageTokens().reduce((a, b) => a + b, 0)).toBe(t.length);
    expect(t.messageTokens()).toHaveLength(messages.length);
    expect(t.prompt().length - t.length).toBe(t.promptHeaderTokens);
  });

  it('without(from, to) is the transcript of the other messages, custom tools moved into the first user turn kept', () => {
    const { options, messages } = cases['custom tools written into the first user turn, a structured call, a result object']!;
    const t = new Transcript(tokenizer, options, messages);
    const kept = t.without(0, 4);
    expect(kept.messages).toEqual([messages[4]]);
    expect(kept.ids).toEqual(renderIds({ ...options, messages: [messages[4]!], addGenerationPrompt: false }, tokenizer));
    expect(kept.text()).toContain('get_weather');
    expect(t.without(1, 1).ids).toEqual(t.ids);
    expect(() => t.without(2, 1)).toThrow(RangeError);
    expect(() => t.without(0, 6)).toThrow(RangeError);
    // What is left must still be a valid turn order: a result without its call is refused.
    expect(() => t.without(1, 2)).toThrow(FormatError);
  });

  it('a slice shares nothing mutable with its source', () => {
    const t = new Transcript(tokenizer, {}, [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello' }]);
    const before = [...t.ids];
    const s = t.slice(1);
    s.append({ role: 'assistant', content: 'Other' });
    expect(t.ids).toEqual(before);
    expect(s.messages.map((m) => m.content)).toEqual(['Hi', 'Other']);
  });

  it('a turn appended with its content already encoded equals the same turn appended as text', () => {
    const options = { tools: [weather], date: '11 August 2026' };
    const call = { role: 'assistant' as const, content: '', tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }] };
    const a = new Transcript(tokenizer, options, [{ role: 'user', content: 'Weather?' }, call]);
    const b = a.slice(2);
    a.append({ role: 'ipython', content: '{"sky": "sunny"}' });
    b.appendEncoded({ role: 'ipython', content: '{"sky": "sunny"}' }, tokenizer.encode('{"sky": "sunny"}'));
    expect(b.ids).toEqual(a.ids);
    expect(() => new Transcript(tokenizer, options).appendEncoded({ role: 'user', content: 'x' }, [87])).toThrow(FormatError);
  });
});

describe('Transcript.rerender', () => {
  const tool = (name: string) => ({ type: 'function', function: { name, description: `the ${name} tool`, parameters: { type: 'object', properties: {} } } });
  it('writes the same messages under new options, as a transcript created with them would', () => {
    const before: SystemOptions = { date: '2026-12-06', tools: [tool('first')] };
    const after: SystemOptions = { date: '2026-12-06', tools: [tool('first'), tool('second')] };
    const messages: Message[] = [{ role: 'user', content: 'go' }];
    const t = new Transcript(tokenizer, before, messages);
    t.append({ role: 'assistant', content: '', raw: '{"name": "first", "parameters": {}}', stop: 'eom' } as Message);
    t.append({ role: 'ipython', content: 'one' });
    const kept = t.messages;
    t.rerender(after);
    expect(t.options).toEqual(after);
    expect(t.messages).toEqual(kept);
    expect(t.ids).toEqual(new Transcript(tokenizer, after, kept).ids);
    expect(t.prompt()).toEqual(renderIds({ ...after, messages: kept, addGenerationPrompt: true }, tokenizer));
  });
});
