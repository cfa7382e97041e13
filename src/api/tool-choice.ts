/**
 * `tool_choice` → what the engine is told, enforced through its logits processors (not hinted in
 * the prompt, which stays the same whatever the choice, so the KV cache prefix is shared):
 *
 * - `none`, or no tools offered: `<|python_tag|>` and `<|eom_id|>` are banned and the reply is read
 *   as plain text — a call cannot be made, whatever the model writes.
 * - `auto`: the model decides; its reply is parsed once (src/format/parse.ts).
 * - a named function: the call's opening is forced — `{"name": "NAME", "parameters":` for a custom
 *   tool, `<|python_tag|>NAME.call(query=` for brave_search / wolfram_alpha, `<|python_tag|>` for the
 *   code interpreter — and the model writes the arguments. Forcing the opening ids (rather than
 *   constrained decoding of the whole call) needs no grammar engine in the sampler, works the same on
 *   every backend that honours forced tokens, and leaves the arguments to the model as the checkpoint
 *   was trained to write them; the arguments are not checked against the schema here.
 * - `required`: `{"name":` is forced when custom tools are offered (the model picks which), else
 *   `<|python_tag|>` (a built-in call or code).
 */
import type { LogitsProcessorSpec } from '../engine/contract';
import { EOM, PYTHON_TAG } from '../format/special-tokens';
import type { TextTokenizer } from '../format/types';
import { invalidField } from './api-error';
import type { ChatTurnRequest } from './chat-types';

export interface ToolChoicePlan {
  logitsProcessors: LogitsProcessorSpec[];
  /** Whether the reply is parsed for calls (false: it is plain text). */
  readCalls: boolean;
}

/** Throws a 400 (param `tool_choice`) for a choice the offered tools cannot satisfy. */
export function planToolChoice(request: Pick<ChatTurnRequest, 'toolChoice' | 'tools' | 'builtinTools'>, tokenizer: TextTokenizer): ToolChoicePlan {
  const { toolChoice: choice, tools, builtinTools } = request;
  const offered = tools.length + builtinTools.length > 0;
  if (!offered && choice.type !== 'auto' && choice.type !== 'none') throw invalidField('tool_choice', `"${choice.type}" needs tools, and none are offered`);
  if (!offered || choice.type === 'none') return { logitsProcessors: [{ type: 'ban', tokens: [PYTHON_TAG, EOM] }], readCalls: false };
  if (choice.type === 'auto') return { logitsProcessors: [], readCalls: true };
  const force = (tokens: number[]): ToolChoicePlan => ({ logitsProcessors: [{ type: 'force', tokens }], readCalls: true });
  if (choice.type === 'required') return force(tools.length > 0 ? tokenizer.encode('{"name":') : [PYTHON_TAG]);
  const name = choice.name;
  if (tools.some((t) => t.function.name === name)) return force(tokenizer.encode(`{"name": ${JSON.stringify(name)}, "parameters":`));
  if (name === 'code_interpreter' && builtinTools.includes(name)) return force([PYTHON_TAG]);
  if ((name === 'brave_search' || name === 'wolfram_alpha') && builtinTools.includes(name)) return force([PYTHON_TAG, ...tokenizer.encode(`${name}.call(query=`)]);
  throw invalidField('tool_choice', `names the tool ${JSON.stringify(name)}, which is not offered`);
}
