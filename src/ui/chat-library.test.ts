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
import { emittedText, renderIds } from '../format/render';
import { loadTokenizer } from '../format/tokenizer/load-node';
import { createNodeEngine } from '../../worker/create-node-engine';
import type { Engine } from '../../worker/engine';
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

describe('chat search', () => {
  it('finds conversations by every word of the query, in titles and in the text of any turn, accents and case aside', async () => {
    const { library, ask } = setup();
    await ask('What is the harbour called?', 'Old Harbour, by the café.');
    const harbour = library.current!;
    library.newChat();
    await ask('Opening hours on Monday?', 'From 07:00 to 18:00.');
    const hours = library.current!;
    await library.rename(hours, 'Shop times');
    const ids = async (q: string) => (await library.search(q)).map((c) => c.id);
    expect(await ids('')).toEqual([hours, harbour]);
    expect(await ids('harbour')).toEqual([harbour]);
    expect(await ids('CAFE old')).toEqual([harbour]); // the answer's text, without its accent
    expect(await ids('shop')).toEqual([hours]); // the title
    expect(await ids('18:00 monday')).toEqual([hours]);
    expect(await ids('harbour monday')).toEqual([]);
  });
});

describe('export to Markdown, and import of an export', () => {
  it('an imported export renders and continues: its re-export is the same file, so `render --ids` gives the same ids', async () => {
    const { library, ask, session } = setup();
    await ask('Plan a trip', 'Go north.');
    await ask('And then?', 'Go south.');
    const original = library.current!;
    const file = (await library.exportJson(original))!.json;
    const tokens = session.contextTokens();
    const imported = await library.importJson(file);
    expect(imported).not.toBe(original);
    expect(library.current).toBe(imported);
    expect((await library.list()).map((c) => c.id).sort()).toEqual([original, imported].sort());
    expect(session.transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(session.contextTokens()).toBe(tokens);
    const again = (await library.exportJson(imported))!.json;
    expect(JSON.parse(again)).toEqual(JSON.parse(file));
    expect(renderIds(parseConversation(JSON.parse(again)), tokenizer)).toEqual(renderIds(parseConversation(JSON.parse(file)), tokenizer));
    // It goes on like any chat.
    await ask('And after that?', 'Home.');
    expect(session.transcript).toHaveLength(6);
    expect((await library.exportJson(imported))!.json).toContain('And after that?');
  });

  const bad: Record<string, { text: string; error: RegExp }> = {
    'not JSON': { text: '{"messages": [', error: /^the file is not JSON/ },
    'JSON that is not an export': { text: '{"hello": 1}', error: /^the file is not a conversation exported by this page: expected an object with "messages"$/ },
    'no message': { text: '{"messages": []}', error: /^the file holds no message$/ },
    'a chat that starts with the answer': { text: '{"messages": [{"role": "assistant", "content": "Hi"}]}', error: /^messages\[0\]: expected the first message to be the user's/ },
    'a damaged answer': {
      text: JSON.stringify({ messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'x', ids: [128009], stop: 'eot', toolCalls: [] }] }),
      error: /^the file is damaged: messages\[1\]\.ids: an assistant message's ids hold a special token other than <\|python_tag\|>$/,
    },
    'an answer without its terminator': {
      text: JSON.stringify({ messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'x', ids: [13347], toolCalls: [] }] }),
      error: /^the file is damaged: \$\.tree\.nodes\.t0\.reply.*stop: ids without raw text need their terminator/,
    },
    'a bad date': { text: JSON.stringify({ date: 'soon', messages: [{ role: 'user', content: 'Hi' }] }), error: /^the file is damaged: \$\.renderOptions\.date: expected YYYY-MM-DD$/ },
  };
  for (const [name, { text, error }] of Object.entries(bad)) {
    it(`refuses ${name}, saying what is wrong, and changes nothing`, async () => {
      const { library, ask } = setup();
      await ask('Plan a trip', 'Go north.');
      const before = { list: await library.list(), current: library.current };
      await expect(library.importJson(text)).rejects.toThrow(error);
      expect({ list: await library.list(), current: library.current }).toEqual(before);
    });
  }

  it('exports the shown branch as Markdown: the title, then each question and answer', async () => {
    const { library, ask } = setup();
    await ask('Plan a trip', 'Go **north**.');
    await library.rename(library.current!, 'Trip');
    const md = (await library.exportMarkdown(library.current!))!;
    expect(md).toEqual({ name: 'trip.md', markdown: '# Trip\n\n**You:** Plan a trip\n\n**Assistant:** Go **north**.\n' });
  });
});
