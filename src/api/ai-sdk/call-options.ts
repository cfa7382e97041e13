/**
 * The AI SDK's call options → one ChatTurnRequest. Function tools become Llama custom tools, except
 * those named as Llama's built-ins (`brave_search`, `wolfram_alpha`, `code_interpreter`): those are
 * offered the way the checkpoint was trained (system block, `<|python_tag|>` calls) and their calls
 * come back under that name with {"query"} or {"code"} — the documented extension, so the app's own
 * tool of that name runs them. Every option this provider cannot honour throws
 * UnsupportedFunctionalityError naming it. The one option not used is `headers`: the spec applies it
 * to HTTP providers only, and `ai` always sends its user-agent; this provider makes no HTTP request.
 */
import { UnsupportedFunctionalityError, type LanguageModelV3CallOptions, type LanguageModelV3FunctionTool } from '@ai-sdk/provider';
import type { SamplingParams } from '../../engine/contract';
import { isBuiltinToolName, type BuiltinToolName } from '../../format/builtin-tools';
import type { ChatTurnRequest, PromptTool, ToolChoice } from '../chat-types';
import type { JsonObject } from '../openai/fields';
import { checkSchemaCoverage } from '../schema-coverage';
import { toApiMessages } from './prompt';

/** The provider's key in providerOptions / providerMetadata. */
export const PROVIDER_KEY = 'llama31';

function unsupported(functionality: string, why: string): never {
  throw new UnsupportedFunctionalityError({ functionality, message: `${functionality} is not supported: ${why}` });
}

export function toTurnRequest(options: LanguageModelV3CallOptions): ChatTurnRequest {
  if (options.includeRawChunks) unsupported('includeRawChunks', 'there is no raw provider stream: the engine runs in this page');
  const own = options.providerOptions?.[PROVIDER_KEY];
  if (own && Object.keys(own).length > 0) unsupported(`providerOptions.${PROVIDER_KEY}.${Object.keys(own)[0]}`, 'this provider has no options');

  const tools: PromptTool[] = [];
  const builtinTools: BuiltinToolName[] = [];
  for (const tool of options.tools ?? []) {
    if (tool.type !== 'function') unsupported(`provider tool "${tool.name}"`, "name a function tool brave_search, wolfram_alpha or code_interpreter to offer Llama's built-ins");
    if ((tool.inputExamples?.length ?? 0) > 0) unsupported(`inputExamples (tool "${tool.name}")`, "Llama 3.1's custom-tool format shows schemas only");
    if (isBuiltinToolName(tool.name)) {
      checkBuiltinSchema(tool);
      builtinTools.push(tool.name);
    } else {
      tools.push({ type: 'function', function: { name: tool.name, ...(tool.description !== undefined ? { description: tool.description } : {}), parameters: tool.inputSchema as Record<string, unknown> } });
    }
  }
  return {
    messages: toApiMessages(options.prompt),
    tools,
    builtinTools,
    toolChoice: toolChoice(options.toolChoice),
    sampling: sampling(options),
    stop: options.stopSequences ?? [],
    ...(options.maxOutputTokens !== undefined ? { maxTokens: options.maxOutputTokens } : {}),
    ...replyFormat(options.responseFormat),
  };
}

/** `responseFormat` json (Output.object, generateObject): the reply is JSON of its schema, or any JSON object without one. */
function replyFormat(format: LanguageModelV3CallOptions['responseFormat']): Pick<ChatTurnRequest, 'replyFormat'> {
  if (!format || format.type !== 'json') return {};
  if (!format.schema) return { replyFormat: { type: 'json_object' } };
  try {
    return { replyFormat: { type: 'json_schema', schema: checkSchemaCoverage(format.schema as JsonObject, 'responseFormat.schema') } };
  } catch (e) {
    return unsupported('responseFormat.schema', e instanceof Error ? e.message : String(e));
  }
}

/** A built-in's call arguments are fixed by the checkpoint: the app's schema must take them. */
function checkBuiltinSchema(tool: LanguageModelV3FunctionTool): void {
  const key = tool.name === 'code_interpreter' ? 'code' : 'query';
  const property = (tool.inputSchema.properties as Record<string, { type?: unknown }> | undefined)?.[key];
  if (property?.type !== 'string') unsupported(`tool "${tool.name}" with this input schema`, `Llama 3.1 calls ${tool.name} with {"${key}": string}: its input schema must have that property`);
}

function toolChoice(choice: LanguageModelV3CallOptions['toolChoice']): ToolChoice {
  if (!choice) return { type: 'auto' };
  return choice.type === 'tool' ? { type: 'function', name: choice.toolName } : { type: choice.type };
}

function sampling(o: LanguageModelV3CallOptions): SamplingParams {
  const out: SamplingParams = {};
  if (o.temperature !== undefined) out.temperature = o.temperature;
  if (o.topP !== undefined) out.topP = o.topP;
  if (o.topK !== undefined) out.topK = o.topK;
  if (o.presencePenalty !== undefined) out.presencePenalty = o.presencePenalty;
  if (o.frequencyPenalty !== undefined) out.frequencyPenalty = o.frequencyPenalty;
  if (o.seed !== undefined) out.seed = o.seed;
  return out;
}
