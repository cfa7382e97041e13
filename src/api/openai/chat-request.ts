/**
 * An OpenAI chat completions request (untrusted JSON) → one ChatTurnRequest. Every field this
 * project does not support — or supports only at its default — is refused with a 400 naming it.
 * OpenAI `tools` become Llama custom tools, shown in the prompt as the same function schemas;
 * `builtin_tools` (the extension) offers Llama's built-ins; `context_policy` (the extension: rolling,
 * keep-first or stop) drops the oldest exchanges of a conversation that would not fit instead of
 * OpenAI's 400 (agent/context-policy.ts).
 */
import * as v from 'valibot';
import { CONTEXT_POLICIES } from '../../agent/context-policy';
import { BUILTIN_TOOL_NAMES, isBuiltinToolName, type BuiltinToolName } from '../../format/builtin-tools';
import { fields, plainObject } from '../../parse/fields';
import { invalidField, unsupportedField } from '../api-error';
import { checkSchemaCoverage } from '../schema-coverage';
import type { ApiMessage, ApiToolCall, ChatTurnRequest, PromptTool, ReplyFormat, ToolChoice } from '../chat-types';
import { checked, defaultOnly, jsonObject, knownKeysOnly, knownObject, objectAt, onlyKnown, optionalBoolean, optionalField, optionalNumber, present, requiredString, requiredText, textContent, type JsonObject } from './fields';
import { GENERATION_FIELDS, readGenerationFields } from './generation-fields';

const CHAT_FIELDS = [
  'model', 'messages', 'tools', 'tool_choice', 'builtin_tools', 'parallel_tool_calls', 'max_completion_tokens', 'logprobs', 'top_logprobs', 'response_format', 'grammar',
  'context_policy',
  ...GENERATION_FIELDS,
];

export interface ChatRequest {
  model: string;
  turn: ChatTurnRequest;
  stream: boolean;
  includeUsage: boolean;
  /** Choices to sample from the prompt (`n`). */
  choices: number;
}

/** OpenAI's rule for function names. */
const functionName = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected 1 to 64 letters, digits, _ or -'));

const text = v.string('expected a string');
const flag = v.boolean('expected a boolean');
const parameters = plainObject<JsonObject>('expected a JSON schema object');

/** llama-server's and vLLM's `grammar`: EBNF text with a root rule. */
const GRAMMAR_MESSAGE = 'expected an EBNF grammar (a string with a root rule)';
const grammar = v.pipe(v.string(GRAMMAR_MESSAGE), v.check((g) => g.trim() !== '', GRAMMAR_MESSAGE));

const FUNCTION = v.literal('function', 'expected "function"');

/** A message's `tool_calls`: unknown keys refused first, then type, function, id, and the function's name and arguments. */
const toolCallList = v.array(
  v.pipe(
    jsonObject,
    knownKeysOnly(['id', 'type', 'function']),
    fields({ type: FUNCTION, function: v.pipe(jsonObject, knownKeysOnly(['name', 'arguments'])), id: requiredText }, 'expected an object'),
    // The function's name and arguments after the call's id, each reported at its own path.
    v.pipe(v.any(), fields({ id: requiredText, function: fields({ name: requiredText, arguments: requiredText }, 'expected an object') }, 'expected an object')),
    v.transform((call): ApiToolCall => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
  ),
  'expected an array',
);

/** `tool_choice` naming one function: `{"type": "function", "function": {"name"}}`. */
const namedToolChoice = v.pipe(
  jsonObject,
  knownKeysOnly(['type', 'function']),
  fields({ type: FUNCTION, function: knownObject({ name: requiredText }) }, 'expected an object'),
  v.transform((choice): ToolChoice => ({ type: 'function', name: choice.function.name })),
);

const contextPolicyName = v.picklist(CONTEXT_POLICIES, `expected one of ${CONTEXT_POLICIES.join(', ')}`);

const builtinToolName = v.picklist(BUILTIN_TOOL_NAMES, `expected one of ${BUILTIN_TOOL_NAMES.join(', ')}`);

export function readChatRequest(value: unknown): ChatRequest {
  const body = objectAt(value, 'body');
  onlyKnown(body, CHAT_FIELDS, '');
  const model = requiredString(body, 'model');
  defaultOnly(body, 'parallel_tool_calls', true, 'Llama 3.1 may make several calls in one message, and each is returned');
  const logprobs = readLogprobs(body);
  const replyFormat = readReplyFormat(body);
  const generation = readGenerationFields(body, ['max_tokens', 'max_completion_tokens']);
  const tools = readTools(body);
  const builtinTools = readBuiltinTools(body);
  const contextPolicy = optionalField(body, 'context_policy', contextPolicyName);
  const turn: ChatTurnRequest = {
    messages: readMessages(body.messages),
    tools,
    builtinTools,
    toolChoice: readToolChoice(body),
    sampling: generation.sampling,
    stop: generation.stop,
    ...(generation.maxTokens !== undefined ? { maxTokens: generation.maxTokens } : {}),
    ...(replyFormat ? { replyFormat } : {}),
    ...(generation.cacheSalt ? { cacheSalt: generation.cacheSalt } : {}),
    ...(logprobs !== undefined ? { logprobs } : {}),
    ...(contextPolicy !== undefined ? { contextPolicy } : {}),
  };
  return { model, turn, stream: generation.stream, includeUsage: generation.includeUsage, choices: generation.choices };
}

/** `logprobs: true` with `top_logprobs` 0 to 20 → alternatives per token; absent or false → none. */
function readLogprobs(body: JsonObject): number | undefined {
  const on = optionalBoolean(body, 'logprobs') ?? false;
  const top = optionalNumber(body, 'top_logprobs', { min: 0, max: 20, integer: true });
  if (top !== undefined && !on) throw invalidField('top_logprobs', 'only with "logprobs": true');
  return on ? (top ?? 0) : undefined;
}

/**
 * `response_format` (OpenAI: text, json_object, json_schema) and `grammar` (llama-server's and vLLM's
 * EBNF field). A json_schema's `strict` is accepted either way: the reply is always held to the schema.
 */
function readReplyFormat(body: JsonObject): ReplyFormat | undefined {
  let format: ReplyFormat | undefined;
  if (present(body, 'response_format')) {
    const f = objectAt(body.response_format, 'response_format');
    if (f.type === 'json_object') onlyKnown(f, ['type'], 'response_format');
    else if (f.type === 'json_schema') {
      onlyKnown(f, ['type', 'json_schema'], 'response_format');
      const spec = objectAt(f.json_schema, 'response_format.json_schema');
      onlyKnown(spec, ['name', 'description', 'schema', 'strict'], 'response_format.json_schema');
      requiredString(spec, 'name', 'response_format.json_schema');
      optionalField(spec, 'strict', flag, 'response_format.json_schema');
      const schema = present(spec, 'schema') ? objectAt(spec.schema, 'response_format.json_schema.schema') : {};
      format = { type: 'json_schema', schema: checkSchemaCoverage(schema, 'response_format.json_schema.schema') };
    } else if (f.type !== 'text') throw invalidField('response_format.type', `expected "text", "json_object" or "json_schema" (got ${JSON.stringify(f.type)})`);
    else onlyKnown(f, ['type'], 'response_format');
    if (f.type === 'json_object') format = { type: 'json_object' };
  }
  const ebnf = optionalField(body, 'grammar', grammar);
  if (ebnf !== undefined) {
    if (format) throw invalidField('grammar', 'give either grammar or a JSON response_format, not both');
    format = { type: 'grammar', grammar: ebnf };
  }
  return format;
}

function readMessages(value: unknown): ApiMessage[] {
  if (!Array.isArray(value) || value.length === 0) throw invalidField('messages', 'expected a non-empty array of messages');
  return value.map((m, i) => readMessage(m, `messages[${i}]`));
}

function readMessage(value: unknown, at: string): ApiMessage {
  const m = objectAt(value, at);
  const role = m.role;
  // `name` is accepted and not shown to the model: Llama 3.1's format has no place for it (vLLM's template drops it too).
  optionalField(m, 'name', text, at);
  if (role === 'system' || role === 'developer' || role === 'user') {
    onlyKnown(m, ['role', 'content', 'name'], at);
    return { source: at, role: role === 'user' ? 'user' : 'system', content: textContent(m.content, `${at}.content`) };
  }
  if (role === 'assistant') {
    onlyKnown(m, ['role', 'content', 'tool_calls', 'refusal', 'name'], at);
    if (present(m, 'refusal')) throw unsupportedField(`${at}.refusal`, 'this model does not refuse through a separate field');
    const content = present(m, 'content') ? textContent(m.content, `${at}.content`) : '';
    const toolCalls = optionalField(m, 'tool_calls', toolCallList, at) ?? [];
    if (!present(m, 'content') && toolCalls.length === 0) throw invalidField(`${at}.content`, 'an assistant message needs content or tool_calls');
    return { source: at, role, content, toolCalls };
  }
  if (role === 'tool') {
    onlyKnown(m, ['role', 'content', 'tool_call_id'], at);
    return { source: at, role, toolCallId: requiredString(m, 'tool_call_id', at), content: textContent(m.content, `${at}.content`) };
  }
  throw invalidField(`${at}.role`, `expected system, developer, user, assistant or tool (got ${JSON.stringify(role)})`);
}

function readTools(body: JsonObject): PromptTool[] {
  if (!present(body, 'tools')) return [];
  if (!Array.isArray(body.tools)) throw invalidField('tools', 'expected an array of function tools');
  const names = new Set<string>();
  return body.tools.map((t, i) => {
    const at = `tools[${i}]`;
    const tool = objectAt(t, at);
    onlyKnown(tool, ['type', 'function'], at);
    if (tool.type !== 'function') throw unsupportedField(`${at}.type`, `only "function" tools (Llama's built-ins go in builtin_tools), got ${JSON.stringify(tool.type)}`);
    const fn = objectAt(tool.function, `${at}.function`);
    onlyKnown(fn, ['name', 'description', 'parameters', 'strict'], `${at}.function`);
    const name = requiredString(fn, 'name', `${at}.function`);
    checked(functionName, name, `${at}.function.name`);
    if (isBuiltinToolName(name)) throw invalidField(`${at}.function.name`, `"${name}" is a Llama 3.1 built-in tool: offer it through builtin_tools`);
    if (names.has(name)) throw invalidField(`${at}.function.name`, `two tools are named "${name}"`);
    names.add(name);
    optionalField(fn, 'strict', flag, `${at}.function`);
    optionalField(fn, 'description', text, `${at}.function`);
    const schema = optionalField(fn, 'parameters', parameters, `${at}.function`);
    if (schema) checkSchemaCoverage(schema, `${at}.function.parameters`);
    return promptSchema(name, fn);
  });
}

/** The schema as the prompt shows it: `{"type": "function", "function": {name, description, parameters}}`, the keys runAgent writes, in its order. */
function promptSchema(name: string, fn: JsonObject): PromptTool {
  const schema = { name, ...(present(fn, 'description') ? { description: fn.description } : {}), ...(present(fn, 'parameters') ? { parameters: fn.parameters } : {}) };
  return { type: 'function', function: schema as PromptTool['function'] };
}

function readBuiltinTools(body: JsonObject): BuiltinToolName[] {
  if (!present(body, 'builtin_tools')) return [];
  const list = body.builtin_tools;
  if (!Array.isArray(list)) throw invalidField('builtin_tools', `expected an array of ${BUILTIN_TOOL_NAMES.join(', ')}`);
  return list.map((name: unknown, i) => {
    const tool = checked(builtinToolName, name, `builtin_tools[${i}]`);
    if (list.indexOf(tool) !== i) throw invalidField(`builtin_tools[${i}]`, `"${tool}" is listed twice`);
    return tool;
  });
}

function readToolChoice(body: JsonObject): ToolChoice {
  if (!present(body, 'tool_choice')) return { type: 'auto' };
  const choice = body.tool_choice;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return { type: choice };
  return checked(namedToolChoice, choice, 'tool_choice');
}
