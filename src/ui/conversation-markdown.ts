/**
 * A stored conversation's shown branch as Markdown, for reading and sharing: its title, then per turn
 * the user's message and the answer, each tool call as a code block with its result. Pure.
 */
import { ConversationTree, type TurnNode } from './conversation-tree';
import { pythonJson } from '../format/python-json';
import type { Message, ToolCall } from '../format/types';
import type { StoredConversation } from './stored-conversation';

export function conversationMarkdown(c: StoredConversation): string {
  const turns = ConversationTree.from(c.tree).activePath();
  return `# ${c.title}\n\n${turns.map(turnMarkdown).join('\n\n---\n\n')}\n`;
}

function turnMarkdown(turn: TurnNode): string {
  const out = [`**You:** ${turn.userText}`];
  const calls: ToolCall[] = [];
  for (const m of turn.reply) {
    if (m.role === 'assistant') {
      const prose = text(m).trim();
      if (prose !== '') out.push(`**Assistant:** ${prose}`);
      calls.push(...(m.toolCalls ?? []));
    } else {
      const call = calls.shift();
      const name = call ? (call.kind === 'code' ? 'code_interpreter' : call.name) : 'tool';
      const args = call ? (call.kind === 'code' ? String(call.arguments.code) : pythonJson(call.arguments)) : '';
      out.push(`**Tool call (${name}):**\n\n${fence(args, call?.kind === 'code' ? 'python' : 'json')}\n\n**Result:**\n\n${fence(text(m), '')}`);
    }
  }
  return out.join('\n\n');
}

function text(m: Message): string {
  return typeof m.content === 'string' ? m.content : pythonJson(m.content);
}

/** A fenced block that the text cannot close: the fence is longer than any run of backticks in it. */
function fence(body: string, language: string): string {
  const longest = Math.max(2, ...[...body.matchAll(/`+/g)].map((r) => r[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${language}\n${body}\n${ticks}`;
}
