/**
 * Reads a conversation exported as JSON (the CLI's render input: exportConversation) back into a
 * stored conversation: the messages become turns (a user message and the replies after it), the
 * tool results keep their texts, and the render options (tools, date) what the system block said.
 *
 * Invariant: anything that is not such an export — not JSON, a damaged message, an order the
 * format does not allow, a system message — is refused with an Error saying what is wrong, and
 * nothing is created.
 */
import { callId } from '../agent/events';
import { parseConversation, validateTurnOrder } from '../format/conversation';
import type { Message } from '../format/types';
import { titleOf } from './chat-title';
import { ConversationTree, ROOT, type StoredToolResult, type TreeData, type TurnNode } from './conversation-tree';
import { STORED_VERSION, type RenderedOptions, type StoredConversation } from './stored-conversation';

export function importConversation(text: string, id: string, now: number): StoredConversation {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`not a conversation export: the file is not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  let conversation;
  try {
    conversation = parseConversation(value);
    validateTurnOrder(conversation.messages, false);
  } catch (e) {
    throw new Error(`not a conversation export: ${e instanceof Error ? e.message : String(e)}`);
  }
  const { messages } = conversation;
  if (messages.some((m) => m.role === 'system')) throw new Error('not a conversation export: it has a system message (an export keeps the system block as its options: tools, date)');
  if (messages.length === 0 || messages[0]!.role !== 'user') throw new Error('not a conversation export: it must start with a user message');
  const tree = treeOf(messages, now);
  const input = value as { title?: unknown; model?: unknown };
  const renderOptions: RenderedOptions = {
    ...(conversation.builtinTools ? { builtinTools: conversation.builtinTools } : {}),
    ...(conversation.tools ? { tools: conversation.tools } : {}),
    ...(typeof conversation.date === 'string' ? { date: conversation.date } : {}),
  };
  return {
    version: STORED_VERSION,
    id,
    title: typeof input.title === 'string' && input.title.trim() !== '' ? input.title.trim().slice(0, 200) : titleOf(String(messages[0]!.content)),
    named: typeof input.title === 'string',
    createdAt: now,
    updatedAt: now,
    modelId: typeof input.model === 'string' ? input.model : null,
    tree,
    allowedTools: [],
    renderOptions,
  };
}

/** One turn per user message, each the child of the one before; every turn selected. */
function treeOf(messages: readonly Message[], now: number): TreeData {
  const tree = ConversationTree.empty();
  let parent = ROOT;
  let i = 0;
  for (let n = 0; i < messages.length; n++) {
    const user = messages[i++]!;
    const reply: Message[] = [];
    while (i < messages.length && messages[i]!.role !== 'user') reply.push(messages[i++]!);
    if (reply.length === 0) throw new Error(`not a conversation export: $.messages[${i - 1}] is a user message with no answer after it (each turn of a chat is a message and its answer)`);
    const node: TurnNode = { id: `imported-${n}`, parent, userText: typeof user.content === 'string' ? user.content : JSON.stringify(user.content), reply, reason: 'done', toolResults: resultsOf(reply), createdAt: now };
    tree.add(node);
    parent = node.id;
  }
  return tree.toData();
}

/** Each call's result, in order: an error when its text is the loop's `{"error": …}` shape. */
function resultsOf(reply: readonly Message[]): StoredToolResult[] {
  const out: StoredToolResult[] = [];
  let step = 0;
  const waiting: string[] = [];
  for (const m of reply) {
    if (m.role === 'assistant') {
      (m.toolCalls ?? []).forEach((_, index) => waiting.push(callId(step, index)));
      step++;
    } else {
      const id = waiting.shift();
      const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
      if (id) out.push({ callId: id, isError: content.startsWith('{"error"'), durationMs: 0 });
    }
  }
  return out;
}
