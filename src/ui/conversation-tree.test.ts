import { describe, expect, it } from 'vitest';
import type { Message } from '../format/types';
import { ConversationTree, ROOT, transcriptOf, type TurnNode } from './conversation-tree';

const answer = (text: string): Message => ({ role: 'assistant', content: text, raw: text, ids: [1, 2], stop: 'eot', toolCalls: [] });
const turn = (id: string, parent: string, userText: string, reply = [answer(`re ${userText}`)]): TurnNode => ({
  id,
  parent,
  userText,
  reply,
  reason: 'done',
  toolResults: [],
  createdAt: 0,
});

/** a → b → c, then b edited into b2 (a sibling of b) with its own d. */
function branched(): ConversationTree {
  const t = ConversationTree.empty();
  t.add(turn('a', ROOT, 'first'));
  t.add(turn('b', 'a', 'second'));
  t.add(turn('c', 'b', 'third'));
  t.add(turn('b2', 'a', 'second, edited'));
  t.add(turn('d', 'b2', 'fourth'));
  return t;
}

describe('ConversationTree', () => {
  it('a new turn extends the path; its transcript is user messages and replies, in order', () => {
    const t = ConversationTree.empty();
    expect(t.activePath()).toEqual([]);
    t.add(turn('a', ROOT, 'hi'));
    t.add(turn('b', 'a', 'more'));
    expect(t.activePath().map((n) => n.id)).toEqual(['a', 'b']);
    expect(transcriptOf(t.activePath())).toEqual([{ role: 'user', content: 'hi' }, answer('re hi'), { role: 'user', content: 'more' }, answer('re more')]);
    expect(t.leaf).toBe('b');
  });

  it('an alternative is a sibling: it is shown with its own continuation, the old branch is kept', () => {
    const t = branched();
    expect(t.activePath().map((n) => n.id)).toEqual(['a', 'b2', 'd']);
    expect(t.siblings('b')).toEqual(['b', 'b2']);
    t.select('b');
    expect(t.activePath().map((n) => n.id)).toEqual(['a', 'b', 'c']);
    t.select('b2');
    expect(t.activePath().map((n) => n.id)).toEqual(['a', 'b2', 'd']);
  });

  it('pathTo gives the turns down to a node, whichever branch is shown', () => {
    const t = branched();
    expect(t.pathTo('c').map((n) => n.id)).toEqual(['a', 'b', 'c']);
    expect(t.pathTo(ROOT)).toEqual([]);
  });

  it('round-trips through its data (what is stored), as a copy', () => {
    const t = branched();
    t.select('b');
    const data = t.toData();
    const back = ConversationTree.from(data);
    expect(back.activePath().map((n) => n.id)).toEqual(['a', 'b', 'c']);
    data.selected.a = 'b2';
    expect(back.activePath().map((n) => n.id)).toEqual(['a', 'b', 'c']);
  });

  it('refuses a turn under an unknown parent, a duplicate id, and selecting an unknown turn', () => {
    const t = branched();
    expect(() => t.add(turn('x', 'nope', 'q'))).toThrow(/no turn "nope"/);
    expect(() => t.add(turn('a', ROOT, 'q'))).toThrow(/exists already/);
    expect(() => t.select('nope')).toThrow(/no turn/);
  });
});
