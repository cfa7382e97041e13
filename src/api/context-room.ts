import { ApiError } from './api-error';

/**
 * Before anything is generated: the engine's own rule (the prompt must leave room in the context
 * window) and OpenAI's (prompt + max_tokens must fit), as a 400 `context_length_exceeded` naming the
 * field to change. Nothing is checked when the window is unknown.
 */
export function checkRoom(promptTokens: number, maxTokens: number | undefined, contextWindow: number | undefined, promptParam = 'messages'): void {
  if (contextWindow === undefined) return;
  if (promptTokens < contextWindow && promptTokens + (maxTokens ?? 0) <= contextWindow) return;
  const wanted = maxTokens !== undefined ? ` + max_tokens ${maxTokens}` : '';
  const param = maxTokens !== undefined && promptTokens < contextWindow ? 'max_tokens' : promptParam;
  throw new ApiError(400, 'invalid_request_error', 'context_length_exceeded', `the prompt has ${promptTokens} tokens${wanted} and the context window is ${contextWindow}`, param);
}
