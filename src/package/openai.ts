/** The package's OpenAI-compatible entry (`llama-agent-web/openai`): `chat.completions.create` over an engine, in process. */
export { createChatCompletions, type ChatCompletions, type ChatCompletionsOptions, type RequestOptions } from '../api/openai/create-chat-completions';
export type { ApiEngine, SurfaceOptions } from '../api/api-engine';
export type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParams,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolCall,
  ChatCompletionToolChoice,
} from '../api/openai/wire-types';
