/**
 * The saved conversations in Node: the real session (tiny model, forced output) over the memory
 * store, which clones as IndexedDB does. What the sidebar relies on: a conversation is stored by its
 * first kept turn, listed newest first, reopened exactly, renamed, exported, deleted; a failing store
 * leaves the chat working and says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptIds } from '../agent/scripted-output';
import { withScriptedSteps } from '../../tests/support/scripted-steps';
import type { LoadedModelInfo } from '../engine/contract';
import { parseConversation } from '../format/conversation';
import { emittedText } from '../format/render';
import { loadTokenizer } from '../format/tokenizer/load-node';
import { createNodeEngine } from '../../worker/create-node-engine';
import type { Engine } from '../../worker/engine';
import { callId } from '../agent/events';
import { renderIds } from '../format/render';
import { defineCustomTool } from '../tools/custom-tool';
import type { Tool } from '../tools/tool';
import { ChatLibrary } from './chat-library';
import { titleOf } from './chat-title';
import { ChatSession, type ChatSessionOptions } from './chat-session';
import { memoryConversationStore, type ConversationStore } from './conversation-store';

const tokenizer = loadTokenizer();
let engine: Engine;
let model: LoadedModelInfo;
beforeAll(async () => {
  engine = createNodeEngine();
  model = await engine.load('tiny-llama');
});
afterAll(() => engine.unload());

const weather = defineCustomTool({ name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, readOnly: true, execute: async ({ city }) => ({ city, sky: 'sunny' }) });

function setup(store: ConversationStore = memoryConversationStore(), tools: Tool[] = [], confirm: ChatSessionOptions['confirm'] = async () => 'once') {
  const forcing = withScriptedSteps(engine);
  const session = new ChatSession({
    engine: forcing,
    tokenizer: () => tokenizer,
    model: () => model,
    tools: () => tools,
    settings: () => ({ sampling: { temperature: 0 }, maxSteps: 2, maxTokensPerStep: 32 }),
    confirm,
  });
  let last: string | null = null;
  const library = new ChatLibrary({ store, session, model: () => 'tiny-llama', lastOpen: { get: () => last, set: (id) => (last = id) } });
  const settled = () => library.exportJson(library.current ?? ''); // waits for the queued writes
  const ask = async (q: string, ...steps: string[]) => {
    forcing.forceNextRun(steps.map((a) => scriptIds(`${a}<|eot_id|>`, tokenizer)));
    await session.send(q);
    await settled();
  };
  const edit = async (node: string, q: string, a: string) => {
    forcing.forceNextRun([scriptIds(`${a}<|eot_id|>`, tokenizer)]);
    await session.edit(node, q);
    await settled();
  };
  return { store, session, library, ask, edit, settled, forcing, lastOpen: () => last };
}

describe('ChatLibrary', () => {
  it('stores a conversation from its first kept turn, newest first, titled by its first message', async () => {
    const { library, ask, session, lastOpen } = setup();
    expect(await library.list()).toEqual([]);
    await ask('What is the harbour called?', 'Old Harbour.');
    const first = library.current!;
    expect(lastOpen()).toBe(first);
    library.newChat();
    expect(library.current).toBeNull();
    expect(session.transcript).toEqual([]);
    await ask('A second conversation about bridges', 'Seven bridges.');
    const list = await library.list();
    expect(list.map((c) => c.title)).toEqual(['A second conversation about bridges', 'What is the harbour called?']);
    expect(list[1]!.id).toBe(first);
  });

  it('reopens a conversation exactly (the same transcript, ids included), and a switch keeps the list order', async () => {
    const { library, ask, edit, settled, session } = setup();
    await ask('One?', 'Uno.');
    await ask('Two?', 'Dos.');
    const id = library.current!;
    const transcript = session.transcript;
    library.newChat();
    await ask('Other?', 'Otro.');
    expect(await library.open(id)).toBe(true);
    expect(session.transcript).toEqual(transcript);
    expect(session.transcript[1]).toMatchObject({ role: 'assistant', ids: expect.any(Array), stop: 'eot' });
    expect((await library.list())[0]!.id).not.toBe(id); // opening is not activity
    // An alternative (activity: the record moves to the top), then a switch back, stored as well.
    const two = session.path[1]!.id;
    await edit(two, 'Two, again?', 'Dos otra vez.');
    const afterEdit = await library.list();
    expect(afterEdit[0]!.id).toBe(id);
    session.switchTo(two);
    await settled();
    expect(await library.list()).toEqual(afterEdit); // a switch changes no updatedAt
    library.newChat();
    expect(await library.open(id)).toBe(true);
    expect(session.transcript.map((m) => m.content)).toEqual(['One?', 'Uno.', 'Two?', 'Dos.']);
    expect(session.siblings(two)).toHaveLength(2);
  });

  it('renames, exports as render input, and deletes', async () => {
    const { library, ask } = setup();
    await ask('Plan a trip', 'Go north.');
    const id = library.current!;
    await library.rename(id, '  Trip planning  ');
    expect((await library.list())[0]!.title).toBe('Trip planning');
    const exported = (await library.exportJson(id))!;
    expect(exported.name).toBe('trip-planning.json');
    const file = JSON.parse(exported.json);
    expect(file).toMatchObject({ title: 'Trip planning', model: 'tiny-llama', addGenerationPrompt: false, messages: [{ role: 'user', content: 'Plan a trip' }, { role: 'assistant', stop: 'eot', toolCalls: [] }] });
    // The answer is stored as the ids the model emitted; the CLI reads the file back to the same text.
    expect(emittedText(parseConversation(file).messages[1]!, tokenizer)).toBe('Go north.');
    // A new turn does not take the chosen name back.
    await ask('And south?', 'Also fine.');
    expect((await library.list())[0]!.title).toBe('Trip planning');
    await library.remove(id);
    expect(await library.list()).toEqual([]);
    expect(library.current).toBeNull();
  });

  it('a store that fails leaves the chat working and says so', async () => {
    const broken: ConversationStore = {
      list: async () => Promise.reject(new Error('IndexedDB is not available')),
      get: async () => null,
      put: async () => Promise.reject(new Error('QuotaExceededError')),
      delete: async () => {},
    };
    const { library, ask, session } = setup(broken);
    await ask('Still works?', 'Yes.');
    expect(session.transcript.map((m) => m.content)).toEqual(['Still works?', 'Yes.']);
    expect(library.problem).toMatch(/not being saved: QuotaExceededError/);
    expect(await library.list()).toEqual([]);
    expect(library.problem).toMatch(/IndexedDB is not available/);
  });

  it('import of a JSON export: a new conversation, opened, the same transcript (ids included), and it continues', async () => {
    const CALL = '{"name": "get_weather", "parameters": {"city": "Oslo"}}';
    const first = setup(memoryConversationStore(), [weather]);
    await first.ask('Weather in Oslo?', CALL, 'Sunny in Oslo.');
    await first.ask('And tomorrow?', 'Probably sunny.');
    const exported = (await first.library.exportJson(first.library.current!))!;

    const second = setup(memoryConversationStore(), [weather]);
    const id = await second.library.importJson(exported.json);
    expect(second.library.current).toBe(id);
    expect((await second.library.list()).map((c) => c.title)).toEqual(['Weather in Oslo?']);
    expect(second.session.transcript).toEqual(first.session.transcript);
    const card = second.session.path[0]!.toolResults;
    expect(card).toEqual([{ callId: callId(0, 0), isError: false, durationMs: 0 }]);
    // A re-export renders to the ids the engine held.
    const again = (await second.library.exportJson(id))!;
    const ids = (json: string) => renderIds(parseConversation(JSON.parse(json)), tokenizer);
    expect(ids(again.json)).toEqual(ids(exported.json));
    await second.ask('And the day after?', 'Rain.');
    expect(second.session.transcript.at(-1)).toMatchObject({ role: 'assistant' });
    expect(second.session.path).toHaveLength(3);
  });

  it('an import that is not an export, or is damaged, is refused with what is wrong and changes nothing', async () => {
    const { library, ask } = setup();
    await ask('Keep me', 'Kept.');
    const before = await library.list();
    const current = library.current;
    const cases: Array<[string, RegExp]> = [
      ['{"messages": [', /not JSON/],
      ['{"title": "x"}', /\$\.messages: expected an array/],
      ['{"messages": [{"role": "user", "content": 5}]}', /\$\.messages\[0\]/],
      ['{"messages": [{"role": "assistant", "content": "Hi"}]}', /start with a user message|order|first/],
      ['{"messages": [{"role": "system", "content": "x"}, {"role": "user", "content": "Hi"}]}', /system message/],
      ['{"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}', /messages\[0\] is a user message with no answer/],
    ];
    for (const [text, why] of cases) await expect(library.importJson(text), text).rejects.toThrow(why);
    expect(await library.list()).toEqual(before);
    expect(library.current).toBe(current);
  });

  it('search finds conversations by title or by any message, case-insensitive', async () => {
    const { library, ask, session } = setup();
    await ask('Plan a trip', 'Go to the FJORDS.');
    const trip = library.current!;
    session.clear();
    await ask('Bake bread', 'Use rye flour.');
    const bread = library.current!;
    expect(await library.search('fjords')).toEqual(new Set([trip]));
    expect(await library.search('BREAD')).toEqual(new Set([bread]));
    expect(await library.search('nothing like this')).toEqual(new Set());
    expect(await library.search('  ')).toEqual(new Set([trip, bread]));
  });

  it('Markdown export: title, each message, each tool call and its result fenced', async () => {
    const { library, ask } = setup(memoryConversationStore(), [weather]);
    await ask('Weather in Oslo?', '{"name": "get_weather", "parameters": {"city": "Oslo"}}', 'Sunny in Oslo.');
    const md = (await library.exportMarkdown(library.current!))!;
    expect(md.name).toBe('weather-in-oslo.md');
    expect(md.markdown).toBe(
      [
        '# Weather in Oslo?',
        '*Model: tiny-llama*',
        '## You',
        'Weather in Oslo?',
        '## Assistant',
        '**Tool call: get_weather**',
        '```json\n{\n  "city": "Oslo"\n}\n```',
        'Result:',
        '```text\n{"city": "Oslo", "sky": "sunny"}\n```',
        'Sunny in Oslo.',
      ].join('\n\n') + '\n',
    );
  });

  it('New chat while a confirmation is pending: the run stops, its turn stays in the chat it was in (stored), the new chat is empty', async () => {
    const mailer = defineCustomTool({ name: 'send_email', description: 'Sends', parameters: { type: 'object' }, execute: async () => 'sent' });
    let asked!: () => void;
    const askedOnce = new Promise<void>((resolve) => (asked = resolve));
    const waitForever: ChatSessionOptions['confirm'] = (_call, signal) => {
      asked();
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve('deny'), { once: true }));
    };
    const { library, session, store, forcing } = setup(memoryConversationStore(), [mailer], waitForever);
    forcing.forceNextRun([scriptIds('{"name": "send_email", "parameters": {}}<|eot_id|>', tokenizer)]);
    const sent = session.send('Mail the report');
    await askedOnce;
    await library.newChat();
    await sent;
    expect(library.current).toBeNull();
    expect(session.transcript).toEqual([]);
    const [left] = await library.list();
    expect(left!.title).toBe('Mail the report');
    const record = (await store.get(left!.id))!;
    const turn = Object.values(record.tree.nodes)[0]!;
    expect(turn.reason).toBe('aborted');
    expect(JSON.stringify(turn.reply.find((m) => m.role === 'ipython')?.content)).toMatch(/aborted by the user/);
  });

  it('titles: one line, shortened', () => {
    expect(titleOf('  How   many\nbridges? ')).toBe('How many bridges?');
    expect(titleOf('x'.repeat(100))).toHaveLength(60);
  });
});
