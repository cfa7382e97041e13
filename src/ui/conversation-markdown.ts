/**
 * A conversation as Markdown for people: the title, then each turn of the shown branch — the user's
 * message, what the assistant said, and each tool call with its result in fenced blocks. Not meant to
 * be read back (the JSON export is the exact one).
 */
import type { Message } from '../format/types';
import { ConversationTree } from './conversation-tree';
import type { StoredConversation } from './stored-conversation';
import { callDisplay } from './tool-display';

export function conversationMarkdown(c: StoredConversation): string {
  const out: string[] = [`# ${oneLine(c.title)}`];
  if (c.modelId) out.push(`*Model: ${c.modelId}*`);
  for (const turn of ConversationTree.from(c.tree).activePath()) {
    out.push('## You', turn.userText.trim());
    const calls: string[] = [];
    const said: string[] = [];
    for (const m of turn.reply) {
      if (m.role === 'assistant') {
        const text = typeof m.content === 'string' ? m.content.trim() : '';
        if (text && (m.toolCalls?.length ?? 0) === 0) said.push(text);
        for (const call of m.toolCalls ?? []) {
          const d = callDisplay(call);
          calls.push(`**Tool call: ${d.name}**`, fenced(d.body, d.language));
        }
      } else if (m.role === 'ipython' || m.role === 'tool') {
        calls.push('Result:', fenced(resultText(m), 'text'));
      }
    }
    out.push('## Assistant', ...calls, ...said);
  }
  return `${out.join('\n\n')}\n`;
}

function resultText(m: Message): string {
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
}

/** A fence longer than any run of backticks inside, so no content can close it early. */
function fenced(text: string, language: string): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (x) => x[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function markdownFileName(jsonName: string): string {
  return jsonName.replace(/\.json$/, '.md');
}
