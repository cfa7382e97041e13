/**
 * A conversation exported by this page (stored-conversation.ts: the CLI's render input, title and model
 * riding along) read back as a stored conversation that renders and continues: one turn per user
 * message, its reply the messages up to the next one, exactly as exported (emitted ids, stop, parsed
 * calls), so `render --ids` of its export equals that of the file. Pure; throws an Error saying what is
 * wrong with a file that is not such an export, or is damaged.
 */
import { normalizeRole } from '../format/conversation';
import { checkEmitted } from '../format/render';
import { namedTitle, titleOf } from './chat-title';
import { ROOT, type StoredToolResult, type TreeData, type TurnNode } from './conversation-tree';
import { parseStoredConversation, STORED_VERSION, type StoredConversation } from './stored-conversation';

export function importConversation(text: string, id: string, now: number): StoredConversation {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`the file is not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Array.isArray((value as { messages?: unknown }).messages)) {
    throw new Error('the file is not a conversation exported by this page: expected an object with "messages"');
  }
  const file = value as { title?: unknown; model?: unknown; messages: unknown[]; builtinTools?: unknown; tools?: unknown; date?: unknown };
  const tree = turnsOf(file.messages, now);
  const first = Object.values(tree.nodes)[0]?.userText;
  const title = (typeof file.title === 'string' ? namedTitle(file.title) : null) ?? (first !== undefined ? titleOf(first) : 'Imported chat');
  const candidate = {
    version: STORED_VERSION,
    id,
    title,
    named: true,
    createdAt: now,
    updatedAt: now,
    modelId: typeof file.model === 'string' ? file.model : null,
    tree,
    allowedTools: [],
    renderOptions: {
      ...(file.builtinTools !== undefined ? { builtinTools: file.builtinTools } : {}),
      ...(file.tools !== undefined ? { tools: file.tools } : {}),
      ...(file.date !== undefined ? { date: file.date } : {}),
    },
  };
  try {
    return parseStoredConversation(candidate);
  } catch (e) {
    throw new Error(`the file is damaged: ${(e instanceof Error ? e.message : String(e)).replace(/^stored conversation /, '')}`);
  }
}

/** One turn per user message, in a line: each the child of the one before. */
function turnsOf(messages: unknown[], now: number): TreeData {
  const nodes: Record<string, TurnNode> = {};
  const children: Record<string, string[]> = {};
  const selected: Record<string, string> = {};
  let parent = ROOT;
  let node: TurnNode | null = null;
  messages.forEach((m, i) => {
    const role = typeof m === 'object' && m !== null ? (m as { role?: unknown }).role : undefined;
    if (role === 'user') {
      const content = (m as { content?: unknown }).content;
      if (typeof content !== 'string') throw new Error(`messages[${i}].content: expected the user's text`);
      node = { id: `t${i}`, parent, userText: content, reply: [], reason: 'done', toolResults: [], createdAt: now };
      nodes[node.id] = node;
      (children[parent] ??= []).push(node.id);
      selected[parent] = node.id;
      parent = node.id;
    } else if (node === null) {
      throw new Error(`messages[${i}]: expected the first message to be the user's (a ${String(role)} message cannot start a chat here)`);
    } else {
      const ids = (m as { ids?: unknown }).ids;
      if (Array.isArray(ids) && ids.every(Number.isInteger)) {
        try {
          checkEmitted(ids as number[]);
        } catch (e) {
          throw new Error(`the file is damaged: messages[${i}].ids: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      (node as TurnNode).reply.push(m as TurnNode['reply'][number]);
    }
  });
  if (node === null) throw new Error('the file holds no message');
  for (const n of Object.values(nodes)) n.toolResults = resultsOf(n);
  return { nodes, children, selected };
}

/** What the cards show for each result (its duration unknown). */
function resultsOf(node: TurnNode): StoredToolResult[] {
  const out: StoredToolResult[] = [];
  let step = -1;
  let index = 0;
  for (const m of node.reply) {
    const role = normalizeRole(m.role);
    if (role === 'assistant') (step++, (index = 0));
    else if (role === 'ipython' && step >= 0) out.push({ callId: `${step}.${index++}`, isError: false, durationMs: 0 });
  }
  return out;
}
