/**
 * The surfaces' messages → the format's transcript (shared/FORMAT.md "Roles and turns").
 *
 * Invariants:
 * - An assistant message the app sends back unchanged is the one the model emitted (ids,
 *   terminator, parsed calls: see transcript-memory.ts); any other is written in structured form, its
 *   arguments parsed from JSON (a 400 naming the field when they are not a JSON object).
 * - Tool results are matched to calls by id, and become ipython turns in the order of the calls,
 *   whatever order the app sent them in: the id ↔ position mapping is exact. A result for no waiting
 *   call, a second result for one call, a tool message after no calls, or a call left without a
 *   result is a 400 naming the message.
 * - A result is never an empty turn: a blank string becomes the same note runAgent writes.
 */
import type { Message } from '../format/types';
import { valueText } from '../tools/tool-result';
import { invalidField } from './api-error';
import type { ApiMessage, ApiToolCall } from './chat-types';
import type { TranscriptMemory } from './transcript-memory';

type ToolMessage = Extract<ApiMessage, { role: 'tool' }>;
type AssistantMessage = Extract<ApiMessage, { role: 'assistant' }>;

/** `date`: the system block date of the conversation's first remembered reply (it keeps that date), if any. */
export function toTranscript(messages: readonly ApiMessage[], memory: TranscriptMemory): { messages: Message[]; date?: string } {
  const out: Message[] = [];
  let date: string | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'tool') throw invalidField(m.source, 'a tool message must follow an assistant message with tool_calls');
    if (m.role !== 'assistant') {
      out.push({ role: m.role, content: m.content });
      continue;
    }
    const recalled = memory.recallEntry(m.content, m.toolCalls);
    date ??= recalled?.date;
    out.push(recalled?.message ?? assistantMessage(m));
    let end = i + 1;
    while (end < messages.length && messages[end]!.role === 'tool') end++;
    out.push(...orderedResults(m, messages.slice(i + 1, end) as ToolMessage[]));
    i = end - 1;
  }
  return { messages: out, ...(date !== undefined ? { date } : {}) };
}

/** An assistant message the memory does not hold, in structured form. */
function assistantMessage(m: AssistantMessage): Message {
  const message: Message = { role: 'assistant', content: m.content };
  if (m.toolCalls.length > 0) {
    message.tool_calls = m.toolCalls.map((call, j) => ({ function: { name: call.name, arguments: argumentsObject(call, `${m.source}.tool_calls[${j}]`) } }));
  }
  return message;
}

function argumentsObject(call: ApiToolCall, where: string): Record<string, unknown> {
  if (call.name === '') throw invalidField(`${where}.function.name`, 'expected the name of a tool');
  let value: unknown;
  try {
    value = JSON.parse(call.arguments);
  } catch {
    throw invalidField(`${where}.function.arguments`, 'expected a JSON object (this call was not sent back as it was returned, so it is written again from its arguments)');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidField(`${where}.function.arguments`, 'expected a JSON object');
  return value as Record<string, unknown>;
}

/** The results of one assistant message's calls, as ipython turns in call order. */
function orderedResults(assistant: AssistantMessage, results: readonly ToolMessage[]): Message[] {
  const slots = new Map<string, ToolMessage | null>(assistant.toolCalls.map((c) => [c.id, null]));
  if (slots.size !== assistant.toolCalls.length) throw invalidField(`${assistant.source}.tool_calls`, 'two calls share an id');
  for (const r of results) {
    if (!slots.has(r.toolCallId)) {
      throw invalidField(`${r.source}.tool_call_id`, `no call of ${assistant.source} has the id ${JSON.stringify(r.toolCallId)}`);
    }
    if (slots.get(r.toolCallId)) throw invalidField(`${r.source}.tool_call_id`, `the call ${JSON.stringify(r.toolCallId)} already has a result`);
    slots.set(r.toolCallId, r);
  }
  return assistant.toolCalls.map((call, j) => {
    const r = slots.get(call.id);
    if (!r) throw invalidField(`${assistant.source}.tool_calls[${j}]`, `the call ${JSON.stringify(call.id)} has no tool message with its result`);
    return { role: 'ipython', content: valueText(r.content) };
  });
}
