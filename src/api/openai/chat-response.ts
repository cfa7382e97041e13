/** A chat turn's result in OpenAI's response shapes: the whole completion, or the chunks of a stream. */
import type { ApiToolCall, ChatTurnResult, TurnUsage } from '../chat-types';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionToolCall, CompletionUsage } from './wire-types';

/** The id and creation time every chunk of one response shares. */
export interface ResponseIdentity {
  id: string;
  created: number;
  model: string;
}

export function responseIdentity(model: string, prefix: 'chatcmpl' | 'cmpl'): ResponseIdentity {
  return { id: `${prefix}-${crypto.randomUUID().replaceAll('-', '')}`, created: Math.floor(Date.now() / 1000), model };
}

export function usageOf(usage: TurnUsage): CompletionUsage {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    ...(usage.cachedTokens !== null ? { prompt_tokens_details: { cached_tokens: usage.cachedTokens } } : {}),
  };
}

function wireCall(call: ApiToolCall): ChatCompletionToolCall {
  return { id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } };
}

/** Content is null when the reply is only calls, as OpenAI writes it. */
export function chatCompletion(who: ResponseIdentity, result: ChatTurnResult): ChatCompletion {
  const calls = result.toolCalls.map(wireCall);
  const content = result.content === '' && calls.length > 0 ? null : result.content;
  return {
    ...who,
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null, ...(calls.length > 0 ? { tool_calls: calls } : {}) }, logprobs: null, finish_reason: result.finish }],
    usage: usageOf(result.usage),
  };
}

type Delta = ChatCompletionChunk['choices'][number]['delta'];

export function chunk(who: ResponseIdentity, delta: Delta, finish: ChatCompletionChunk['choices'][number]['finish_reason'] = null): ChatCompletionChunk {
  return { ...who, object: 'chat.completion.chunk', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] };
}

/** After the content deltas: one chunk per call (whole, with its index), the finish, and the usage when asked. */
export function closingChunks(who: ResponseIdentity, result: ChatTurnResult, includeUsage: boolean): ChatCompletionChunk[] {
  const out = result.toolCalls.map((call, index) => chunk(who, { tool_calls: [{ index, ...wireCall(call) }] }));
  out.push(chunk(who, {}, result.finish));
  if (includeUsage) out.push({ ...who, object: 'chat.completion.chunk', choices: [], usage: usageOf(result.usage) });
  return out;
}
