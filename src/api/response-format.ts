/**
 * A reply in a form the caller asked for — a JSON object, JSON valid against a schema, or a string
 * of an EBNF grammar — enforced by the engine's constraint, and the finished JSON (a reply, or a
 * custom call's arguments) checked once more against its schema, so a value that violates it is an
 * error, never an answer.
 */
import { Validator } from '@cfworker/json-schema';
import type { Constraint } from '../engine/contract';
import { ApiError, invalidField } from './api-error';
import type { ToolCall } from '../format/types';
import type { ChatTurnRequest, PromptTool, ReplyFormat } from './chat-types';
import type { ToolChoicePlan } from './tool-choice';

/** The plan for a turn whose reply has a format: no calls, the format's constraint. Throws a 400 when tools are to be called too. */
export function planReplyFormat(plan: ToolChoicePlan, request: Pick<ChatTurnRequest, 'replyFormat' | 'toolChoice' | 'tools' | 'builtinTools'>): ToolChoicePlan {
  const format = request.replyFormat;
  if (!format) return plan;
  if (request.tools.length + request.builtinTools.length > 0 && request.toolChoice.type !== 'none') {
    throw invalidField(format.type === 'grammar' ? 'grammar' : 'response_format', 'a reply in a set format makes no tool calls: send tool_choice "none", or no tools');
  }
  const constraint: Constraint =
    format.type === 'grammar' ? { type: 'grammar', grammar: format.grammar } : format.type === 'json_object' ? { type: 'json_object' } : { type: 'json_schema', schema: format.schema };
  return { logitsProcessors: plan.logitsProcessors, readCalls: false, constraint };
}

/** Throws a 500 naming what is wrong when a finished JSON reply is not what its format promised. */
export function checkReply(content: string, format: ReplyFormat | undefined): void {
  if (!format || format.type === 'grammar') return;
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    throw violation('the reply is not JSON');
  }
  if (format.type === 'json_object') {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw violation('the reply is not a JSON object');
    return;
  }
  const problems = validationErrors(format.schema, value);
  if (problems) throw violation(`the reply does not validate against the schema: ${problems}`);
}

/** Throws a 500 naming the call and what is wrong when a custom call's arguments do not validate against its tool's schema. */
export function checkCallArguments(calls: readonly ToolCall[], tools: readonly PromptTool[]): void {
  for (const call of calls) {
    if (call.kind !== 'custom') continue;
    const schema = tools.find((t) => t.function.name === call.name)?.function.parameters;
    const problems = schema ? validationErrors(schema, call.arguments) : null;
    if (problems) throw violation(`the call of ${call.name} has arguments that do not validate against its schema: ${problems}`);
  }
}

const validators = new Map<string, Validator>();

/** What is wrong with `value` against `schema`, in words; null when it is valid. */
function validationErrors(schema: Record<string, unknown>, value: unknown): string | null {
  const key = JSON.stringify(schema);
  let validator = validators.get(key);
  if (!validator) {
    if (validators.size >= 64) validators.delete(validators.keys().next().value!);
    validators.set(key, (validator = new Validator(schema as never, '2020-12', false)));
  }
  const result = validator.validate(value);
  return result.valid ? null : result.errors.map((e) => `${e.instanceLocation} ${e.error}`).join('; ');
}

function violation(message: string): ApiError {
  return new ApiError(500, 'server_error', 'reply_format_violated', message);
}
