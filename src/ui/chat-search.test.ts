import { expect, it } from 'vitest';
import { conversationMatches } from './chat-search';
import type { StoredConversation } from './stored-conversation';

const conversation = {
  title: 'Weather',
  tree: {
    nodes: {
      a: { userText: 'Weather in Zürich?', reply: [{ role: 'assistant', content: '' }, { role: 'ipython', content: { sky: 'Sunny' } }, { role: 'assistant', content: 'It is sunny.' }] },
      b: { userText: 'And in Bern?', reply: [{ role: 'assistant', content: 'Rain.' }] },
    },
  },
} as unknown as StoredConversation;

it('matches every word, in the title, any branch, a tool result; case and accents aside', () => {
  expect(conversationMatches(conversation, 'zurich SUNNY')).toBe(true);
  expect(conversationMatches(conversation, 'weather rain')).toBe(true);
  expect(conversationMatches(conversation, 'sky')).toBe(true);
  expect(conversationMatches(conversation, 'snow')).toBe(false);
  expect(conversationMatches(conversation, '   ')).toBe(true);
});
