/**
 * Whether a stored conversation matches a search: every word of the query (case- and
 * accent-insensitive) appears in its title or in the text of any of its turns — the user's messages,
 * the answers' content and the tool results — on any branch. Pure.
 */
import type { Message } from '../format/types';
import type { StoredConversation } from './stored-conversation';

export function conversationMatches(conversation: StoredConversation, query: string): boolean {
  const words = folded(query).split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) return true;
  const text = folded([conversation.title, ...Object.values(conversation.tree.nodes).flatMap((n) => [n.userText, ...n.reply.map(messageText)])].join('\n'));
  return words.every((w) => text.includes(w));
}

function messageText(m: Message): string {
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
}

function folded(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}
