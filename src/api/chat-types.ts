/**
 * One chat turn as the standard surfaces (OpenAI's chat completions, the AI SDK provider) hand it to
 * the shared core, and what the core hands back. Neutral: each surface maps its own wire shapes to
 * and from these; the core renders, generates once, parses once and remembers what was emitted.
 */
import type { ContextPolicy } from '../agent/context-policy';
import type { SamplingParams, StopReason, TokenLogprob } from '../engine/contract';
import type { BuiltinToolName } from '../format/builtin-tools';
import type { Message } from '../format/types';

/** A call as the app sees it: an id, the tool's name (as Llama names it) and its arguments as JSON text. */
export interface ApiToolCall {
  id: string;
  name: string;
  /** JSON text of the arguments; for a call the model wrote but that could not be read, the text it wrote. */
  arguments: string;
  /** Set on calls returned for an attempt that could not be read (their `arguments` is not JSON). */
  unreadable?: true;
}

/** Where a message came from in the surface's own request, for error messages (`messages[3]`). */
interface Sourced {
  source: string;
}

export type ApiMessage = Sourced &
  (
    | { role: 'system' | 'user'; content: string }
    | { role: 'assistant'; content: string; toolCalls: ApiToolCall[] }
    /** A result: a string is inserted as is, an object as JSON with Python's separators. */
    | { role: 'tool'; toolCallId: string; content: string | object }
  );

/**
 * A custom tool in the function-schema shape the prompt shows, keys in runAgent's order
 * (`{"type": "function", "function": {"name", "description", "parameters"}}`); absent keys are not written.
 */
export interface PromptTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** `function` names one tool (custom or built-in) and forces a call to it. */
export type ToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'required' } | { type: 'function'; name: string };

export interface ChatTurnRequest {
  messages: ApiMessage[];
  /** Custom tools, as the prompt shows them. */
  tools: PromptTool[];
  /** Llama 3.1's built-in tools offered this turn. */
  builtinTools: BuiltinToolName[];
  toolChoice: ToolChoice;
  /** Only what the request sets; the model's own needs (LoadedModelInfo.sampling) fill the rest. */
  sampling: SamplingParams;
  /** Generated tokens at most, the terminator included (default: the engine's). */
  maxTokens?: number;
  /** Strings that end the reply where they first appear (not included). */
  stop: string[];
  /** The reply's form (JSON, a schema, a grammar), enforced while it is generated; absent: free text or calls. */
  replyFormat?: ReplyFormat;
  /** Requests with different salts never share cached ids. */
  cacheSalt?: string;
  /** Report log probabilities, with this many alternatives per token. */
  logprobs?: number;
  /** What to drop when the conversation would not fit the window; absent: it is refused (a 400, as OpenAI does). */
  contextPolicy?: ContextPolicy;
}

export type TurnFinish = 'stop' | 'length' | 'tool_calls';

/** Token counts, from the engine's stats: the prompt, the reply (terminator included), the prompt ids reused from the cache. */
export interface TurnUsage {
  promptTokens: number;
  completionTokens: number;
  /** null when the backend reports nothing (unknown, not zero). */
  cachedTokens: number | null;
}

export interface ChatTurnResult {
  content: string;
  toolCalls: ApiToolCall[];
  finish: TurnFinish;
  /** Which stop fired in the engine (`abort` when a stop string ended the reply). */
  stop: StopReason;
  usage: TurnUsage;
  /** The transcript entry: what the model emitted (raw text and ids), its terminator and its parsed calls. */
  message: Message;
  /** Per emitted id, when the request asked for them. */
  logprobs?: TokenLogprob[];
  /** The exact prompt this turn sent: ids and text (special tokens by name). */
  prompt: { ids: number[]; text: string };
}

/** A reply in a form the caller asked for (response-format.ts enforces it). */
export type ReplyFormat = { type: 'json_object' } | { type: 'json_schema'; schema: Record<string, unknown> } | { type: 'grammar'; grammar: string };
