/**
 * Stored conversations: what the page writes reads back the same (ids and parsed calls included), a
 * damaged record is refused with the field named, and the export is the CLI's render/replay input:
 * `render --ids` gives back exactly the ids the engine held, `replay` reproduces every prompt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replay } from '../agent/replay';
import { scriptIds } from '../agent/scripted-output';
import { withScriptedSteps } from '../../tests/support/scripted-steps';
import type { AgentEvent } from '../agent/events';
import { parseConversation } from '../format/conversation';
import { renderSegments, segmentsToIds } from '../format/render';
import { loadTokenizer } from '../format/tokenizer/load-node';
import { defineCustomTool } from '../tools/custom-tool';
import { createNodeEngine } from '../../worker/create-node-engine';
import type { Engine } from '../../worker/engine';
import { ChatSession } from './chat-session';
import { memoryConversationStore } from './conversation-store';
import { exportConversation, exportFileName, parseStoredConversation, STORED_VERSION, type StoredConversation } from './stored-conversation';

const tokenizer = loadTokenizer();
let engine: Engine;
let stored: StoredConversation;
const steps: Array<Extract<AgentEvent, { type: 'step-finish' }>> = [];

const weather = defineCustomTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  readOnly: true,
  execute: async ({ city }) => ({ city, sky: 'sunny' }),
});

beforeAll(async () => {
  engine = createNodeEngine();
  const model = await engine.load('tiny-llama');
  const forcing = withScriptedSteps(engine);
  const session = new ChatSession({
    engine: forcing,
    tokenizer: () => tokenizer,
    model: () => model,
    tools: () => [weather],
    settings: () => ({ sampling: { temperature: 0 }, maxSteps: 4, maxTokensPerStep: 64 }),
    confirm: async () => 'once',
  });
  session.on((e) => e.type === 'agent' && e.event.type === 'step-finish' && steps.push(e.event));
  forcing.forceNextRun(['{"name": "get_weather", "parameters": {"city": "Oslo"}}<|eot_id|>', 'Sunny in Oslo.<|eot_id|>'].map((x) => scriptIds(x, tokenizer)));
  await session.send('Weather in Oslo?');
  stored = { version: STORED_VERSION, id: 'c1', title: 'Weather in Oslo?', named: false, createdAt: 1, updatedAt: 2, modelId: 'tiny-llama', ...session.snapshot() };
});
afterAll(() => engine.unload());

describe('stored conversations', () => {
  it('read back exactly as written, through the memory store as through IndexedDB (a structured clone)', async () => {
    const store = memoryConversationStore();
    await store.put(stored);
    const back = await store.get('c1');
    expect(back).toEqual(stored);
    const reply = Object.values(back!.tree.nodes)[0]!.reply;
    expect(reply[0]).toMatchObject({ role: 'assistant', stop: 'eot', ids: steps[0]!.ids, toolCalls: [{ kind: 'custom', name: 'get_weather' }] });
    expect(await store.list()).toEqual([{ id: 'c1', title: 'Weather in Oslo?', updatedAt: 2 }]);
  });

  it('keep who answered a tool call (the card\'s "local math"), and read back without it when there was none', () => {
    const copy = structuredClone(stored) as StoredConversation;
    const node = Object.values(copy.tree.nodes)[0]!;
    expect(node.toolResults).toEqual([{ callId: '0.0', isError: false, durationMs: expect.any(Number) }]);
    node.toolResults[0]!.source = 'local math';
    expect(Object.values(parseStoredConversation(JSON.parse(JSON.stringify(copy))).tree.nodes)[0]!.toolResults[0]!.source).toBe('local math');
  });

  it("keeps an answer's stats", () => {
    const copy = structuredClone(stored) as StoredConversation;
    const node = Object.values(copy.tree.nodes)[0]!;
    node.stats = { tokens: 42, decodeMs: 2100, model: 'micro-llama' };
    expect(Object.values(parseStoredConversation(JSON.parse(JSON.stringify(copy))).tree.nodes)[0]!.stats).toEqual(node.stats);
  });

  it('keeps why a call did not run (the card\'s "could not be read"), with the reasons such a turn ends with', () => {
    const copy = structuredClone(stored) as StoredConversation;
    const node = Object.values(copy.tree.nodes)[0]!;
    node.toolResults[0]!.failure = { kind: 'unreadable_call', message: 'The model wrote a tool call this app could not read (x), so nothing was run.' };
    node.reason = 'unreadable_call';
    const back = Object.values(parseStoredConversation(JSON.parse(JSON.stringify(copy))).tree.nodes)[0]!;
    expect(back.toolResults[0]!.failure).toEqual(node.toolResults[0]!.failure);
    expect(back.reason).toBe('unreadable_call');
  });

  const damaged: Record<string, { edit: (c: Record<string, any>) => void; error: RegExp }> = {
    'another version': { edit: (c) => (c.version = 99), error: /\$\.version: expected 1/ },
    'a turn whose reply is out of turn order': {
      edit: (c) => (Object.values(c.tree.nodes as Record<string, any>)[0]!.reply[0].role = 'dancer'),
      error: /reply: .*role: expected one of/,
    },
    'emitted ids without the calls read from them': { edit: (c) => delete Object.values(c.tree.nodes as Record<string, any>)[0]!.reply[0].toolCalls, error: /toolCalls: ids without raw text need the calls/ },
    'emitted ids without their terminator': { edit: (c) => delete Object.values(c.tree.nodes as Record<string, any>)[0]!.reply[0].stop, error: /stop: ids without raw text need their terminator/ },
    'a parsed call without its kind': { edit: (c) => delete Object.values(c.tree.nodes as Record<string, any>)[0]!.reply[0].toolCalls[0].kind, error: /toolCalls: expected parsed calls/ },
    'a selected turn that is not a child': { edit: (c) => (c.tree.selected[''] = 'nope'), error: /selected\.: expected one of its children/ },
    'a turn no parent lists': { edit: (c) => (c.tree.children[''] = []), error: /a turn no parent lists/ },
    'a bad date': { edit: (c) => (c.renderOptions.date = 'tomorrow'), error: /renderOptions\.date: expected YYYY-MM-DD/ },
    'a missing title': { edit: (c) => delete c.title, error: /\$\.title: expected a string/ },
    'tool names that are not strings': { edit: (c) => (c.allowedTools = [1]), error: /\$\.allowedTools\[0\]: expected an array of tool names/ },
    'a turn filed under another id': { edit: (c) => (Object.values(c.tree.nodes as Record<string, any>)[0]!.id = 'other'), error: /nodes\.[^.]+\.id: does not match its key/ },
    'an unknown finish reason': { edit: (c) => (Object.values(c.tree.nodes as Record<string, any>)[0]!.reason = 'bored'), error: /nodes\.[^.]+\.reason: expected a finish reason/ },
    'a tool result without its duration': {
      edit: (c) => delete Object.values(c.tree.nodes as Record<string, any>)[0]!.toolResults[0].durationMs,
      error: /toolResults\[0\]\.durationMs: expected \{callId, isError, durationMs\}/,
    },
    'stats without the model': {
      edit: (c) => (Object.values(c.tree.nodes as Record<string, any>)[0]!.stats = { tokens: 1, decodeMs: 1 }),
      error: /stats\.model: expected \{tokens, decodeMs, model\}/,
    },
    'a tool result whose failure has an unknown kind': {
      edit: (c) => (Object.values(c.tree.nodes as Record<string, any>)[0]!.toolResults[0].failure = { kind: 'gremlins', message: 'x' }),
      error: /toolResults\[0\]\.failure\.kind: expected \{kind, message\}/,
    },
    'children of a turn that does not exist': { edit: (c) => (c.tree.children.ghost = []), error: /children\.ghost: children of a turn that does not exist/ },
  };
  for (const [name, { edit, error }] of Object.entries(damaged)) {
    it(`refuses ${name}, naming the field`, async () => {
      const copy = structuredClone(stored) as unknown as Record<string, any>;
      edit(copy);
      expect(() => parseStoredConversation(copy)).toThrow(error);
      // A damaged record is listed with its error, not dropped.
      const store = memoryConversationStore();
      await store.put(copy as unknown as StoredConversation);
      expect((await store.list())[0]).toMatchObject({ id: 'c1', title: 'Unreadable conversation', error: expect.stringMatching(error) });
      await expect(store.get('c1')).rejects.toThrow(error);
    });
  }

  it("exports the CLI's render input: render --ids gives the ids the engine held after the last step", () => {
    const file = JSON.parse(JSON.stringify(exportConversation(stored))) as unknown;
    const ids = segmentsToIds(renderSegments(parseConversation(file)), tokenizer);
    const last = steps.at(-1)!;
    expect(ids).toEqual([...last.prompt.ids, ...last.ids, last.stopId]);
    expect(exportFileName(stored)).toBe('weather-in-oslo.json');
  });

  it('replay of the export reproduces every prompt the page ran', async () => {
    const file = JSON.parse(JSON.stringify(exportConversation(stored))) as unknown;
    const report = await replay(parseConversation(file), { engine, tokenizer, tools: [] });
    expect(report.prompts).toEqual(steps.map((s) => s.prompt.text));
    expect(report.toolResults).toEqual([{ name: 'get_weather', content: '{"city": "Oslo", "sky": "sunny"}', isError: false, recorded: true }]);
  });
});
