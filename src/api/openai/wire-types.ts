/**
 * The part of OpenAI's chat completions wire format this project speaks (snake_case: the wire demands
 * it). Requests arrive as untrusted JSON and are read by chat-request.ts; these types describe what
 * it accepts and what the responses hold.
 */

export interface ChatCompletionToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type TextPart = { type: 'text'; text: string };

export type ChatCompletionMessageParam =
  | { role: 'system' | 'developer'; content: string | TextPart[] }
  | { role: 'user'; content: string | TextPart[] }
  | { role: 'assistant'; content?: string | TextPart[] | null; tool_calls?: ChatCompletionToolCall[]; refusal?: null }
  | { role: 'tool'; tool_call_id: string; content: string | TextPart[] };

export interface ChatCompletionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: false | null };
}

export type ChatCompletionToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export interface ChatCompletionCreateParams {
  model: string;
  messages: ChatCompletionMessageParam[];
  tools?: ChatCompletionTool[];
  tool_choice?: ChatCompletionToolChoice;
  /**
   * Extension: Llama 3.1's built-in tools (`brave_search`, `wolfram_alpha`, `code_interpreter`), offered
   * the way the checkpoint was trained (the system block's `Environment: ipython` / `Tools:` lines, calls
   * through `<|python_tag|>`). Their calls come back as tool_calls under these names, with
   * {"query": ...} or {"code": ...}; the app runs them and answers with `role: "tool"`.
   */
  builtin_tools?: Array<'brave_search' | 'wolfram_alpha' | 'code_interpreter'>;
  temperature?: number | null;
  top_p?: number | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  seed?: number | null;
  stop?: string | string[] | null;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  frequency_penalty?: number | null;
  presence_penalty?: number | null;
  logit_bias?: Record<string, number> | null;
  /** Only the defaults: 1, true, false. */
  n?: 1 | null;
  parallel_tool_calls?: true | null;
  logprobs?: false | null;
  /** The reply is held to this form by constrained decoding; a JSON reply is validated once more. */
  response_format?:
    | { type: 'text' }
    | { type: 'json_object' }
    | { type: 'json_schema'; json_schema: { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean | null } }
    | null;
  /** Extension (llama-server's field): the reply is a string of this EBNF grammar (root rule `root`). */
  grammar?: string | null;
}

export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Prompt tokens the engine's KV cache already held (absent when the backend cannot say). */
  prompt_tokens_details?: { cached_tokens: number };
}

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls';

export interface ChatTokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: Array<{ token: string; logprob: number; bytes: number[] }>;
}

export interface ChatChoiceLogprobs {
  content: ChatTokenLogprob[];
  refusal: null;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: { role: 'assistant'; content: string | null; refusal: null; tool_calls?: ChatCompletionToolCall[] };
    logprobs: ChatChoiceLogprobs | null;
    finish_reason: ChatFinishReason;
  }>;
  usage: CompletionUsage;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    delta: { role?: 'assistant'; content?: string; tool_calls?: Array<ChatCompletionToolCall & { index: number }> };
    logprobs: ChatChoiceLogprobs | null;
    finish_reason: ChatFinishReason | null;
  }>;
  /** Only on the last chunk, with `stream_options.include_usage` (its `choices` is then empty). */
  usage?: CompletionUsage | null;
}
