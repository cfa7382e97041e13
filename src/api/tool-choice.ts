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
 *
 * With tools offered, the plan also carries a `tool_calls` constraint (the engine masks the logits
 * with it where it samples itself): a call can then name only the offered tools — the named one, for a
 * named choice — with arguments valid against their schemas, in Llama 3.1's exact format; `none`
 * cannot start one. The forced openings stay, so an engine server that samples on its own side
 * still honours the choice.
 */
import type { ConstrainedBuiltin, Constraint, LogitsProcessorSpec, ToolCallConstraint } from '../engine/contract';
import { EOM, PYTHON_TAG } from '../format/special-tokens';
import type { TextTokenizer } from '../format/types';
import { invalidField } from './api-error';
import type { ChatTurnRequest } from './chat-types';

export interface ToolChoicePlan {
  logitsProcessors: LogitsProcessorSpec[];
  /** Whether the reply is parsed for calls (false: it is plain text). */
  readCalls: boolean;
  constraint?: Constraint;
}

/** Throws a 400 (param `tool_choice`) for a choice the offered tools cannot satisfy. */
export function planToolChoice(request: Pick<ChatTurnRequest, 'toolChoice' | 'tools' | 'builtinTools'>, tokenizer: TextTokenizer): ToolChoicePlan {
  const { toolChoice: choice, tools, builtinTools } = request;
  const offered = tools.length + builtinTools.length > 0;
  if (!offered && choice.type !== 'auto' && choice.type !== 'none') throw invalidField('tool_choice', `"${choice.type}" needs tools, and none are offered`);
  const constraint = (mode: ToolCallConstraint['mode'], only?: string): ToolCallConstraint => ({
    type: 'tool_calls',
    mode,
    tools: tools.filter((t) => only === undefined || t.function.name === only).map((t) => ({ name: t.function.name, parameters: t.function.parameters ?? {} })),
    builtins: builtinTools.filter((b): b is ConstrainedBuiltin => only === undefined || b === only),
  });
  const bans: LogitsProcessorSpec[] = [{ type: 'ban', tokens: [PYTHON_TAG, EOM] }];
  if (!offered) return { logitsProcessors: bans, readCalls: false };
  if (choice.type === 'none') return { logitsProcessors: bans, readCalls: false, constraint: constraint('none') };
  if (choice.type === 'auto') return { logitsProcessors: [], readCalls: true, constraint: constraint('auto') };
  const force = (tokens: number[], only?: string): ToolChoicePlan => ({ logitsProcessors: [{ type: 'force', tokens }], readCalls: true, constraint: constraint('required', only) });
  if (choice.type === 'required') return force(tools.length > 0 ? tokenizer.encode('{"name":') : [PYTHON_TAG]);
  const name = choice.name;
  if (tools.some((t) => t.function.name === name)) return force(tokenizer.encode(`{"name": ${JSON.stringify(name)}, "parameters":`), name);
  if (name === 'code_interpreter' && builtinTools.includes(name)) return force([PYTHON_TAG], name);
  if ((name === 'brave_search' || name === 'wolfram_alpha') && builtinTools.includes(name)) return force([PYTHON_TAG, ...tokenizer.encode(`${name}.call(query=`)], name);
  throw invalidField('tool_choice', `names the tool ${JSON.stringify(name)}, which is not offered`);
}
