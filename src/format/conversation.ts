import * as v from 'valibot';
import { isBuiltinToolName } from './builtin-tools';
import { FormatError } from './errors';
import { parseAssistantOutput } from './parse';
import { EOM_TEXT, EOT_TEXT } from './special-tokens';
import type { CallArguments, Conversation, Message, Role, StructuredToolCall, ToolCall } from './types';

const ROLES = new Set(['system', 'user', 'assistant', 'ipython', 'tool']);

/** The role as written: `tool` is `ipython`. */
export function normalizeRole(role: Message['role']): Role {
  return role === 'tool' ? 'ipython' : role;
}

/** The terminator of an assistant message: `stop` when given, else what the model would have used. */
export function assistantStop(message: Message): 'eom' | 'eot' {
  if (message.stop) return message.stop;
  if (message.raw !== undefined || message.toolCalls !== undefined) {
    const calls = message.toolCalls ?? parseAssistantOutput(message.raw!).toolCalls;
    return calls.some((c) => c.kind === 'builtin' || c.kind === 'code') ? 'eom' : 'eot';
  }
  const calls = message.tool_calls ?? [];
  return calls.some((c) => !isCustomName(c.function.name)) ? 'eom' : 'eot';
}

/** Built-in tools and the code interpreter are called through `<|python_tag|>`; every other name is custom. */
export function isCustomName(name: string): boolean {
  return !isBuiltinToolName(name);
}

/**
 * How many ipython results an assistant message waits for: one per call (invalid calls included:
 * the loop answers them with an error), and one for an eom that made no readable call.
 */
export function expectedResults(message: Message): number {
  const stop = assistantStop(message);
  const calls =
    message.toolCalls !== undefined
      ? message.toolCalls.length
      : message.raw !== undefined
        ? parseAssistantOutput(message.raw + (stop === 'eom' ? EOM_TEXT : EOT_TEXT)).toolCalls.length
        : (message.tool_calls?.length ?? 0);
  return calls === 0 && stop === 'eom' ? 1 : calls;
}

/**
 * Turn order (shared/FORMAT.md "Roles and turns"): a system message only first; an ipython turn only
 * after an assistant turn that made calls, exactly one per call, in order. A conversation may end
 * right after an assistant call whose results are not in yet only when no generation prompt follows.
 * Checked one message at a time, so a transcript that grows is checked once per message.
 */
export class TurnOrder {
  private pending = 0;
  private callerIndex = -1;
  private index = 0;

  /** Accepts the next message, or throws a FormatError naming it. */
  push(message: Message): void {
    const index = this.index++;
    const role = normalizeRole(message.role);
    if (role === 'ipython') {
      if (this.pending === 0) {
        throw new FormatError(
          'turn_order',
          `messages[${index}]: an ipython turn must follow an assistant turn that made a call` +
            (this.callerIndex >= 0 ? ` (messages[${this.callerIndex}]'s calls already have their results)` : ''),
        );
      }
      this.pending--;
      return;
    }
    if (this.pending > 0) {
      throw new FormatError(
        'turn_order',
        `messages[${index}]: messages[${this.callerIndex}] made calls still waiting for ${this.pending} ipython result(s)`,
      );
    }
    if (role === 'system' && index !== 0) {
      throw new FormatError('turn_order', `messages[${index}]: a system message may only come first`);
    }
    if (role === 'assistant') {
      this.pending = expectedResults(message);
      this.callerIndex = index;
    }
  }

  /** Throws unless every call so far has its results (a generation prompt may follow). */
  checkCanGenerate(): void {
    if (this.pending > 0) {
      throw new FormatError(
        'turn_order',
        `messages[${this.callerIndex}] made calls still waiting for ${this.pending} ipython result(s); cannot prompt for generation`,
      );
    }
  }
}

export function validateTurnOrder(messages: readonly Message[], addGenerationPrompt: boolean): void {
  const order = new TurnOrder();
  for (const message of messages) order.push(message);
  if (addGenerationPrompt) order.checkCanGenerate();
}

/** Reads an untrusted JSON value (the CLI's FILE, a stored conversation) into a Conversation, or throws a FormatError naming the bad field. */
export function parseConversation(value: unknown): Conversation {
  const bad = (path: string, what: string): never => {
    throw new FormatError('invalid_input', `${path}: ${what}`);
  };
  if (!isObject(value)) bad('$', 'expected an object with "messages"');
  const input = value as Record<string, unknown>;
  if (!Array.isArray(input.messages)) bad('$.messages', 'expected an array');
  const messages = (input.messages as unknown[]).map((m, i) => parseMessage(m, `$.messages[${i}]`, bad));
  const conversation: Conversation = { messages };
  if (input.builtinTools !== undefined) {
    if (!Array.isArray(input.builtinTools) || !input.builtinTools.every((t) => typeof t === 'string')) {
      bad('$.builtinTools', 'expected an array of tool names');
    }
    conversation.builtinTools = input.builtinTools as string[];
  }
  if (input.tools !== undefined) {
    if (!Array.isArray(input.tools) || !input.tools.every(isObject)) bad('$.tools', 'expected an array of JSON function schemas');
    conversation.tools = input.tools as object[];
  }
  for (const key of ['date', 'knowledgeCutoff'] as const) {
    if (input[key] !== undefined) {
      if (typeof input[key] !== 'string') bad(`$.${key}`, 'expected a string');
      conversation[key] = input[key] as string;
    }
  }
  if (input.addGenerationPrompt !== undefined) {
    if (typeof input.addGenerationPrompt !== 'boolean') bad('$.addGenerationPrompt', 'expected true or false');
    conversation.addGenerationPrompt = input.addGenerationPrompt as boolean;
  }
  return conversation;
}

function parseMessage(value: unknown, path: string, bad: (path: string, what: string) => never): Message {
  if (!isObject(value)) bad(path, 'expected a message object');
  const m = value as Record<string, unknown>;
  if (typeof m.role !== 'string' || !ROLES.has(m.role)) {
    bad(`${path}.role`, `expected one of system, user, assistant, ipython, tool (got ${JSON.stringify(m.role)})`);
  }
  const role = m.role as Message['role'];
  const hasRaw = m.raw !== undefined;
  if (m.content === undefined && !hasRaw && m.ids === undefined && m.tool_calls === undefined) bad(`${path}.content`, 'missing');
  const content = m.content ?? '';
  if (typeof content !== 'string' && !isObject(content) && !Array.isArray(content)) {
    bad(`${path}.content`, 'expected a string or an object');
  }
  const message: Message = { role, content: content as string | object };
  if (hasRaw) {
    if (role !== 'assistant') bad(`${path}.raw`, 'only assistant messages have raw output');
    if (typeof m.raw !== 'string') bad(`${path}.raw`, 'expected a string');
    message.raw = m.raw as string;
  }
  if (m.stop !== undefined) {
    if (m.stop !== 'eom' && m.stop !== 'eot') bad(`${path}.stop`, 'expected "eom" or "eot"');
    if (role !== 'assistant') bad(`${path}.stop`, 'only assistant messages have a terminator');
    message.stop = m.stop as 'eom' | 'eot';
  }
  if (m.ids !== undefined) {
    if (role !== 'assistant') bad(`${path}.ids`, 'only assistant messages have emitted ids');
    if (!Array.isArray(m.ids) || !m.ids.every((id) => Number.isInteger(id) && id >= 0)) bad(`${path}.ids`, 'expected token ids');
    if (!hasRaw && m.stop === undefined) bad(`${path}.stop`, 'ids without raw text need their terminator ("eom" or "eot")');
    if (!hasRaw && m.toolCalls === undefined) bad(`${path}.toolCalls`, 'ids without raw text need the calls read from them');
    message.ids = m.ids as number[];
  }
  if (m.toolCalls !== undefined) {
    if (role !== 'assistant') bad(`${path}.toolCalls`, 'only assistant messages make calls');
    if (!v.is(TOOL_CALLS, m.toolCalls)) bad(`${path}.toolCalls`, 'expected parsed calls {kind, name, arguments}');
    message.toolCalls = m.toolCalls;
  }
  if (m.tool_calls !== undefined) {
    if (role !== 'assistant') bad(`${path}.tool_calls`, 'only assistant messages make calls');
    if (!Array.isArray(m.tool_calls)) bad(`${path}.tool_calls`, 'expected an array');
    message.tool_calls = (m.tool_calls as unknown[]).map((c, i) => parseStructuredCall(c, `${path}.tool_calls[${i}]`, bad));
  }
  return message;
}

function parseStructuredCall(value: unknown, path: string, bad: (path: string, what: string) => never): StructuredToolCall {
  const fn = isObject(value) ? (value as Record<string, unknown>).function : undefined;
  if (!isObject(fn)) bad(`${path}.function`, 'expected {"name", "arguments"}');
  const { name, arguments: args } = fn as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') bad(`${path}.function.name`, 'expected a non-empty string');
  if (typeof args === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(args);
    } catch {
      bad(`${path}.function.arguments`, 'a string must hold a JSON object');
    }
    if (!isObject(parsed)) bad(`${path}.function.arguments`, 'a string must hold a JSON object');
    return { function: { name: name as string, arguments: parsed as Record<string, unknown> } };
  }
  if (!isObject(args)) bad(`${path}.function.arguments`, 'expected an object or a JSON string of one');
  return { function: { name: name as string, arguments: args as Record<string, unknown> } };
}

const callArguments = v.custom<CallArguments>(isObject);

/** Parsed calls as stored: each kind with the arguments it always has (types.ts ToolCall). */
const TOOL_CALLS = v.array(
  v.variant('kind', [
    v.looseObject({ kind: v.literal('builtin'), name: v.string(), arguments: callArguments }),
    v.looseObject({ kind: v.literal('code'), name: v.literal('code_interpreter'), arguments: v.looseObject({ code: v.string() }) }),
    v.looseObject({ kind: v.literal('custom'), name: v.string(), arguments: callArguments }),
    v.looseObject({ kind: v.literal('invalid'), name: v.string(), arguments: v.looseObject({ text: v.string(), error: v.string() }) }),
  ]),
) satisfies v.GenericSchema<unknown, ToolCall[]>;

function isObject(v: unknown): v is object {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
