import { assistantStop, isCustomName, normalizeRole, validateTurnOrder } from './conversation';
import { customToolsUserContent } from './custom-tools';
import { FormatError } from './errors';
import { pythonJson } from './python-json';
import {
  BEGIN_OF_TEXT, END_HEADER, EOM, EOT, FIRST_SPECIAL_ID, PYTHON_TAG, PYTHON_TAG_TEXT, START_HEADER, specialTokenName,
} from './special-tokens';
import { hasSystemOptions, systemBlock } from './system-block';
import type { Conversation, Message, Role, Segment, StructuredToolCall, TextTokenizer } from './types';
import { writeBuiltinCall, writeCustomCall } from './write-call';

const special = (id: number): Segment => ({ kind: 'special', id });
const text = (t: string): Segment => ({ kind: 'text', text: t });

/** `<|start_header_id|>ROLE<|end_header_id|>` then "\n\n" as its own piece (id 271). */
export function headerSegments(role: Role): Segment[] {
  return [special(START_HEADER), text(role), special(END_HEADER), text('\n\n')];
}

/** The assistant header that a prompt for generation ends with. */
export function generationPromptSegments(): Segment[] {
  return headerSegments('assistant');
}

function contentText(content: Message['content']): string {
  return typeof content === 'string' ? content : pythonJson(content);
}

/** One whole turn: header, content, terminator. Content never yields a special id. */
export function messageSegments(message: Message): Segment[] {
  return [...headerSegments(normalizeRole(message.role)), ...turnBodySegments(message)];
}

/** A turn after its header: content, terminator. */
export function turnBodySegments(message: Message): Segment[] {
  const role = normalizeRole(message.role);
  const body = role === 'assistant' ? assistantBody(message) : [text(contentText(message.content))];
  const terminator = role === 'assistant' && assistantStop(message) === 'eom' ? EOM : EOT;
  return [...body, special(terminator)];
}

/**
 * The assistant message body. Raw emitted text is replayed verbatim (with its emitted ids when
 * known); only without raw text is a structured call written the way the model writes it.
 */
function assistantBody(message: Message): Segment[] {
  if (message.raw === undefined && message.ids !== undefined) return [{ kind: 'emitted', ids: message.ids }];
  if (message.raw !== undefined) {
    if (message.ids) return [{ kind: 'text', text: message.raw, ids: message.ids }];
    const out: Segment[] = [];
    message.raw.split(PYTHON_TAG_TEXT).forEach((piece, i) => {
      if (i > 0) out.push(special(PYTHON_TAG));
      if (piece !== '') out.push(text(piece));
    });
    return out;
  }
  const prose = contentText(message.content);
  const calls = message.tool_calls ?? [];
  const out: Segment[] = prose !== '' ? [text(prose)] : [];
  if (calls.length === 0) return out;
  const custom = calls.filter((c) => isCustomName(c.function.name));
  if (custom.length === calls.length) {
    // Custom calls need no tag; after prose the tag marks where the call starts.
    if (out.length > 0) out.push(special(PYTHON_TAG));
    out.push(text(custom.map((c) => writeCustomCall(c.function.name, args(c))).join('; ')));
    return out;
  }
  if (calls.length > 1) {
    throw new FormatError('invalid_input', 'a built-in or code_interpreter call must be the only call of its assistant message');
  }
  const call = calls[0]!.function;
  out.push(special(PYTHON_TAG));
  if (call.name === 'code_interpreter') {
    const code = args(calls[0]!).code;
    if (typeof code !== 'string') throw new FormatError('invalid_input', 'code_interpreter call needs a string "code" argument');
    out.push(text(code));
  } else {
    out.push(text(writeBuiltinCall(call.name, args(calls[0]!))));
  }
  return out;
}

function args(call: StructuredToolCall): Record<string, unknown> {
  const a = call.function.arguments;
  return typeof a === 'string' ? (JSON.parse(a) as Record<string, unknown>) : a;
}

/**
 * The messages as written: with options, the system block (built from them, the caller's own system
 * message after it) comes first and custom tools go into the first user turn; without options,
 * the messages exactly as given. Roles normalized. With `toolsLater`, a conversation without a user
 * turn yet is written without the custom tools (the caller writes them into the user turn it appends).
 */
export function writtenMessages(conversation: Conversation, toolsLater = false): Message[] {
  let messages: Message[] = conversation.messages.map((m) => ({ ...m, role: normalizeRole(m.role) }));
  if (!hasSystemOptions(conversation)) return messages;
  const first = messages[0];
  const callerSystem = first?.role === 'system' ? contentText(first.content) : undefined;
  if (first?.role === 'system') messages = messages.slice(1);
  messages.unshift({ role: 'system', content: systemBlock(conversation, callerSystem) });
  const tools = conversation.tools ?? [];
  if (tools.length > 0) {
    const userIndex = messages.findIndex((m) => m.role === 'user');
    if (userIndex < 0) {
      if (toolsLater) return messages;
      throw new FormatError('missing_user_turn', 'custom tools are written into the first user turn, and there is none');
    }
    messages[userIndex] = withCustomTools(messages[userIndex]!, tools);
  }
  return messages;
}

/** A user turn with the custom tools' instructions written before its text. */
export function withCustomTools(user: Message, tools: readonly object[]): Message {
  return { ...user, content: customToolsUserContent(tools, contentText(user.content)) };
}

/**
 * Conversation → segments (shared/FORMAT.md). With options, the system block is built from them and
 * custom tools go into the first user turn; without options, messages are rendered exactly as given.
 * Validates turn order first; throws FormatError.
 */
export function renderSegments(conversation: Conversation): Segment[] {
  const addGenerationPrompt = conversation.addGenerationPrompt ?? true;
  validateTurnOrder(conversation.messages, addGenerationPrompt);
  const out: Segment[] = [special(BEGIN_OF_TEXT)];
  for (const m of writtenMessages(conversation)) out.push(...messageSegments(m));
  if (addGenerationPrompt) out.push(...generationPromptSegments());
  return out;
}

/**
 * The prompt as a string: special tokens written as their names. Emitted ids stored without their
 * text are decoded, so they need the tokenizer (a FormatError without one).
 */
export function segmentsToText(segments: readonly Segment[], tokenizer?: TextTokenizer): string {
  return segments
    .map((s) => {
      if (s.kind === 'special') return specialTokenName(s.id);
      if (s.kind === 'text') return s.text;
      if (!tokenizer) throw new FormatError('invalid_input', 'an assistant message given as ids without raw text needs the tokenizer to be written as text');
      return tokenizer.decode(s.ids);
    })
    .join('');
}

/** An assistant message's text as the model emitted it (the tag by name): `raw`, else its ids decoded. */
export function emittedText(message: Message, tokenizer: TextTokenizer): string | undefined {
  return message.raw ?? (message.ids !== undefined ? tokenizer.decode(message.ids) : undefined);
}

/**
 * The prompt as ids: special ids only from structure, each text piece encoded on its own as plain
 * content, emitted ids replayed as they were (after checking that they decode to their text).
 */
export function segmentsToIds(segments: readonly Segment[], tokenizer: TextTokenizer): number[] {
  const ids: number[] = [];
  for (const s of segments) {
    if (s.kind === 'special') {
      ids.push(s.id);
    } else if (s.kind === 'emitted') {
      checkEmitted(s.ids);
      append(ids, s.ids);
    } else if (s.ids) {
      checkEmitted(s.ids);
      if (tokenizer.decode(s.ids) !== s.text) {
        throw new FormatError('ids_mismatch', 'an assistant message\'s ids do not decode to its raw text');
      }
      append(ids, s.ids);
    } else {
      append(ids, tokenizer.encode(s.text));
    }
  }
  return ids;
}

/** <|python_tag|> is the one special token that occurs inside an assistant message body. */
export function checkEmitted(ids: readonly number[]): void {
  if (ids.some((id) => id >= FIRST_SPECIAL_ID && id !== PYTHON_TAG)) {
    throw new FormatError('ids_mismatch', "an assistant message's ids hold a special token other than <|python_tag|>");
  }
}

/** Appends without spreading: a huge message would exceed the engine's argument limit as `push(...ids)`. */
function append(into: number[], ids: readonly number[]): void {
  for (const id of ids) into.push(id);
}

export function renderPrompt(conversation: Conversation): string {
  return segmentsToText(renderSegments(conversation));
}

export function renderIds(conversation: Conversation, tokenizer: TextTokenizer): number[] {
  return segmentsToIds(renderSegments(conversation), tokenizer);
}
