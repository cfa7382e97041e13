/** A chat turn's result in OpenAI's response shapes: the whole completion, or the chunks of a stream. */
import type { ApiToolCall, ChatTurnResult, TurnUsage } from '../chat-types';
import type { TextTokenizer } from '../../format/types';
import type { ChatChoiceLogprobs, ChatCompletion, ChatCompletionChunk, ChatCompletionToolCall, CompletionUsage } from './wire-types';

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

/** Several choices of one prompt: the prompt counted once (as the first choice read it), every choice's tokens. */
export function usageOfChoices(results: readonly ChatTurnResult[]): CompletionUsage {
  const first = results[0]!.usage;
  return usageOf({ ...first, completionTokens: results.reduce((n, r) => n + r.usage.completionTokens, 0) });
}

/** A reply's log probabilities as OpenAI writes them: each token's text and bytes, and its alternatives. */
export function choiceLogprobs(result: ChatTurnResult, tokenizer: TextTokenizer): ChatChoiceLogprobs | null {
  if (!result.logprobs) return null;
  const entry = (id: number, logprob: number) => ({ token: tokenizer.decode([id]), logprob, bytes: [...tokenizer.tokenBytes(id)] });
  return { content: result.logprobs.map((t) => ({ ...entry(t.id, t.logprob), top_logprobs: t.top.map((a) => entry(a.id, a.logprob)) })), refusal: null };
}

/** One choice per result, in order; content is null when a reply is only calls, as OpenAI writes it. */
export function chatCompletion(who: ResponseIdentity, results: readonly ChatTurnResult[], tokenizer: TextTokenizer): ChatCompletion {
  return {
    ...who,
    object: 'chat.completion',
    choices: results.map((result, index) => {
      const calls = result.toolCalls.map(wireCall);
      const content = result.content === '' && calls.length > 0 ? null : result.content;
      return { index, message: { role: 'assistant' as const, content, refusal: null, ...(calls.length > 0 ? { tool_calls: calls } : {}) }, logprobs: choiceLogprobs(result, tokenizer), finish_reason: result.finish };
    }),
    usage: usageOfChoices(results),
  };
}

type Delta = ChatCompletionChunk['choices'][number]['delta'];

export function chunk(who: ResponseIdentity, delta: Delta, finish: ChatCompletionChunk['choices'][number]['finish_reason'] = null, choice = 0): ChatCompletionChunk {
  return { ...who, object: 'chat.completion.chunk', choices: [{ index: choice, delta, logprobs: null, finish_reason: finish }] };
}

/** After a choice's content deltas: its log probabilities when asked, one chunk per call (whole, with its index) and the finish. */
export function closingChunks(who: ResponseIdentity, result: ChatTurnResult, tokenizer: TextTokenizer, choice = 0): ChatCompletionChunk[] {
  const logprobs = choiceLogprobs(result, tokenizer);
  const out: ChatCompletionChunk[] = logprobs ? [{ ...chunk(who, {}, null, choice), choices: [{ index: choice, delta: {}, logprobs, finish_reason: null }] }] : [];
  out.push(...result.toolCalls.map((call, index) => chunk(who, { tool_calls: [{ index, ...wireCall(call) }] }, null, choice)));
  out.push(chunk(who, {}, result.finish, choice));
  return out;
}
