/**
 * The shared turn against an in-memory engine that emits chosen ids in chosen batches: the streamed
 * content is never withdrawn (its deltas add up to the final content, for any reply, batching, tool
 * mode and stop strings), and the transcript entry holds exactly what was emitted.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EngineLike, GenerateResult } from '../engine/contract';
import { EOM, EOT, PYTHON_TAG } from '../format/special-tokens';
import { emittedText } from '../format/render';
import { loadTokenizer } from '../format/tokenizer/load-node';
import type { ChatTurnRequest } from './chat-types';
import { runChatTurn } from './chat-turn';
import { TranscriptMemory } from './transcript-memory';

const tokenizer = loadTokenizer();

/** Emits `ids` in batches of the given sizes (cycled), then `stopId`; honours the abort between batches. */
function fakeEngine(ids: number[], batchSizes: number[], stopId: number): EngineLike {
  return {
    async generate(request, onIds, signal): Promise<GenerateResult> {
      const stats = { promptTokens: request.tokens.length, reusedTokens: 0, prefilledTokens: request.tokens.length, decodedTokens: 0, prefillMs: 0, decodeMs: 0 };
      const sent: number[] = [];
      for (let i = 0, b = 0; i < ids.length; b++) {
        if (signal?.aborted) return { tokens: sent, stop: 'abort', stopId: null, stats: { ...stats, decodedTokens: sent.length } };
        const batch = ids.slice(i, i + batchSizes[b % batchSizes.length]!);
        i += batch.length;
        sent.push(...batch);
        onIds?.(batch);
        await Promise.resolve();
      }
      return { tokens: sent, stop: stopId === EOM ? 'eom' : 'eot', stopId, stats: { ...stats, decodedTokens: sent.length + 1 } };
    },
  };
}

const TOOL = { type: 'function' as const, function: { name: 'f', parameters: { type: 'object' } } };

function request(tools: boolean, stop: string[]): ChatTurnRequest {
  return {
    messages: [{ source: 'messages[0]', role: 'user', content: 'q' }],
    tools: tools ? [TOOL] : [],
    builtinTools: [],
    toolChoice: { type: 'auto' },
    sampling: {},
    stop,
  };
}

/** Fragments that exercise every hold-back rule: calls with and without the tag, code, whitespace, stop strings. */
const FRAGMENTS = [
  'Hello', ' world', ' ', '  ', '\n', '\n\n', '\t', '{', '}', '[', ']', '"', ':', ';', '<', '>', '`', '```', '```json\n',
  '{"name": "f", "parameters": {"a": 1}}', '{"name": "f", "parameters": {', '[f(a=1)]', '<function=f>{"a": 1}</function>', '<function=', '<b>',
  'STOP', 'ST', 'print(1)', 'f.call(query="x")', 'é', '日本', '🙂', '{"type": "function"', 'TAG',
];

const replyArb = fc.record({
  parts: fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 14 }),
  batches: fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 4 }),
  eom: fc.boolean(),
  tools: fc.boolean(),
  stops: fc.subarray(['STOP', '\n\n', '}'], { maxLength: 2 }),
});

/** The fragments as emitted ids: 'TAG' is the python tag id, the rest text (encoded per run of text). */
function emittedIds(parts: string[]): number[] {
  const ids: number[] = [];
  let text = '';
  const flush = () => {
    ids.push(...tokenizer.encode(text));
    text = '';
  };
  for (const p of parts) {
    if (p === 'TAG') {
      flush();
      ids.push(PYTHON_TAG);
    } else text += p;
  }
  flush();
  return ids;
}

describe('runChatTurn', () => {
  it('streamed content deltas always add up to the final content', async () => {
    await fc.assert(
      fc.asyncProperty(replyArb, async ({ parts, batches, eom, tools, stops }) => {
        const ids = emittedIds(parts);
        const deltas: string[] = [];
        const deps = { engine: fakeEngine(ids, batches, eom ? EOM : EOT), tokenizer, memory: new TranscriptMemory(), date: '11 August 2026' };
        const result = await runChatTurn(deps, request(tools, stops), { onContent: (d) => deltas.push(d) });
        expect(deltas.join('')).toBe(result.content);
        // Stop strings cut what the model generated; a call read out of it may join the text around it.
        const generated = emittedText(result.message, tokenizer) ?? '';
        for (const stop of stops) {
          expect(generated).not.toContain(stop);
          if (result.toolCalls.length === 0) expect(result.content).not.toContain(stop);
        }
      }),
      {
        numRuns: 400,
        // Once found: "Hello\n" + a custom call + "\nHello" never generated "\n\n", its content is "Hello\n\nHello".
        examples: [[{ parts: ['Hello', '\n', '<function=f>{"a": 1}</function>', '\n', 'Hello'], batches: [1], eom: false, tools: true, stops: ['\n\n'] }]],
      },
    );
  });

  it('the transcript keeps the emitted ids and the terminator; a reply cut by a stop string keeps its text only', async () => {
    const ids = emittedIds(['Hi', 'TAG', 'print(1)']);
    const deps = { engine: fakeEngine(ids, [2], EOM), tokenizer, memory: new TranscriptMemory() };
    const called = await runChatTurn(deps, { ...request(false, []), builtinTools: ['code_interpreter'] });
    expect(called.message).toMatchObject({ ids, stop: 'eom', toolCalls: [{ kind: 'code' }] });
    expect(emittedText(called.message, tokenizer)).toBe('Hi<|python_tag|>print(1)');
    expect(called.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([['code_interpreter', { code: 'print(1)' }]]);
    expect(called).toMatchObject({ content: 'Hi', finish: 'tool_calls' });

    const cut = await runChatTurn({ ...deps, engine: fakeEngine(tokenizer.encode('one two three'), [1], EOT) }, request(false, [' two']));
    expect(cut).toMatchObject({ content: 'one', finish: 'stop', toolCalls: [] });
    expect(cut.message.raw).toBe('one');
    expect(cut.message.ids).toBeUndefined();
  });

  it('an eom that made no call is kept as eot: the app was given no call to answer', async () => {
    const deps = { engine: fakeEngine(tokenizer.encode('Just text.'), [3], EOM), tokenizer, memory: new TranscriptMemory() };
    const r = await runChatTurn(deps, request(true, []));
    expect(r).toMatchObject({ content: 'Just text.', finish: 'stop', toolCalls: [] });
    expect(r.message.stop).toBe('eot');
  });

  it('a conversation continued after midnight keeps the date of its first reply (its prompt, and the cached prefix, unchanged)', async () => {
    let now = new Date(2026, 7, 11, 23, 59);
    const memory = new TranscriptMemory();
    const deps = { engine: fakeEngine(tokenizer.encode('Hello.'), [2], EOT), tokenizer, memory, today: () => now };
    const first = await runChatTurn(deps, request(true, []));
    expect(first.prompt.text).toContain('Today Date: 11 August 2026');
    now = new Date(2026, 7, 12, 0, 1);
    const messages: ChatTurnRequest['messages'] = [
      ...request(true, []).messages,
      { source: 'messages[1]', role: 'assistant', content: first.content, toolCalls: first.toolCalls },
      { source: 'messages[2]', role: 'user', content: 'again' },
    ];
    const second = await runChatTurn(deps, { ...request(true, []), messages });
    expect(second.prompt.ids.slice(0, first.prompt.ids.length)).toEqual(first.prompt.ids);
    expect(second.prompt.text).toContain('Today Date: 11 August 2026');
    // A new conversation starts on the new day.
    const fresh = await runChatTurn(deps, request(true, []));
    expect(fresh.prompt.text).toContain('Today Date: 12 August 2026');
  });
});
