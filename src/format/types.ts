/** Types shared by the format modules: messages in, segments and ids out, parsed calls back. */

export type Role = 'system' | 'user' | 'assistant' | 'ipython';
/** `tool` is accepted as a synonym of `ipython` and written as `ipython`. */
export type InputRole = Role | 'tool';

/** A call written in structured (OpenAI-like) form, used only when no raw text exists. */
export interface StructuredToolCall {
  function: { name: string; arguments: Record<string, unknown> | string };
}

/** A message as given: written by a caller, read from a file, or emitted by the engine (`EmittedMessage`). */
export type Message = InputMessage | EmittedMessage;

/**
 * What a caller writes: a role and its content; for an assistant turn, calls in structured form, or
 * what the model emitted as text (`raw`) with its terminator. A file may also carry what an emitted
 * message carries (`ids`, `toolCalls`), checked as parseConversation says.
 */
export interface InputMessage {
  role: InputRole;
  /** Plain text, or an object rendered as JSON with Python's default separators. */
  content: string | object;
  tool_calls?: StructuredToolCall[];
  /**
   * What the model emitted for this assistant message as text, verbatim and without its terminator
   * (a file or an app that has no ids; a reply cut by a stop string). `<|python_tag|>` is the one
   * special token recognized inside it.
   */
  raw?: string;
  /** The terminator the model sampled. */
  stop?: 'eom' | 'eot';
  /** Emitted token ids (no terminator), replayed as they are; with `raw` too, they must decode to it. */
  ids?: number[];
  /**
   * The calls read once, when the message was emitted (kept so history is never re-parsed; `invalid`
   * calls included). Absent: `raw` is read in its text form when the turn order needs the calls.
   */
  toolCalls?: ToolCall[];
}

/**
 * An assistant message as the loop or the API emitted it: the ids the engine returned (no
 * terminator), the terminator sampled and the calls read from them once. Its text is decoded from
 * the ids when needed (emittedText()).
 */
export interface EmittedMessage {
  role: 'assistant';
  /** The text the user should see (prose before a call, or the whole answer). */
  content: string;
  ids: number[];
  stop: 'eom' | 'eot';
  toolCalls: ToolCall[];
  /** The emitted text, when a file gives it beside the ids (they must decode to it). */
  raw?: string;
  /** Its calls are `toolCalls`, read from what it emitted; it has none in structured form. */
  tool_calls?: never;
}

export type { BuiltinToolName } from './builtin-tools';

export interface RenderOptions {
  /** Built-in tools; `code_interpreter` only enables `Environment: ipython`. Empty = not given. */
  builtinTools?: string[];
  /** Custom tools as JSON function schemas (rendered as given). Empty = not given. */
  tools?: object[];
  /** "11 August 2026", an ISO date "2026-08-11", or a Date. Default: today, when any option is on. */
  date?: string | Date;
  /** Default "December 2023". */
  knowledgeCutoff?: string;
  /** End with the assistant header so generation can start. Default true. */
  addGenerationPrompt?: boolean;
}

export interface Conversation extends RenderOptions {
  messages: Message[];
}

/** A piece of the prompt: a special token written by the structure, or text encoded on its own. */
export type Segment =
  | { kind: 'special'; id: number }
  | { kind: 'text'; text: string; /** ids the model emitted for exactly this text */ ids?: number[] }
  /** Emitted ids stored without their text: they are the message's body. */
  | { kind: 'emitted'; ids: number[] };

/**
 * A call read from the model's output, one shape per kind. `builtin` is any `NAME.call(...)` after
 * `<|python_tag|>` but the code interpreter's (a custom tool's name included), with its keyword
 * arguments, or {query} for one positional string to brave_search / wolfram_alpha.
 */
export type ToolCall = BuiltinToolCall | CodeToolCall | CustomToolCall | InvalidToolCall;

export type ToolCallKind = ToolCall['kind'];

/** Every call's arguments are an object of JSON values; a kind with fixed keys says which on top. */
export type CallArguments = Record<string, unknown>;

export interface BuiltinToolCall {
  kind: 'builtin';
  name: string;
  arguments: CallArguments;
}

/** Code for the interpreter, whether written as `code_interpreter.call(code=...)` or bare after the tag. */
export interface CodeToolCall {
  kind: 'code';
  name: 'code_interpreter';
  arguments: CallArguments & { code: string };
}

/** A JSON, Python-list or `<function=...>` call; the arguments as the model wrote them. */
export interface CustomToolCall {
  kind: 'custom';
  name: string;
  arguments: CallArguments;
}

/** A clear attempt at a call that does not parse: the attempted text and why it failed. */
export interface InvalidToolCall {
  kind: 'invalid';
  /** The name if one could be read, else "". */
  name: string;
  arguments: CallArguments & { text: string; error: string };
}

export interface ParsedOutput {
  /** Text the user should see (prose before a call, or the whole answer). */
  content: string;
  toolCalls: ToolCall[];
  stop: 'eom' | 'eot' | null;
}

/** Byte-level BPE over Llama 3's vocabulary; content is always plain text. */
export interface TextTokenizer {
  /** Plain content → ids. Special-token strings inside the text are ordinary text (ids < 128000). */
  encode(text: string): number[];
  /** Ids → text; special ids become their names. Incomplete UTF-8 at the end decodes to U+FFFD. */
  decode(ids: readonly number[]): string;
  /** The raw bytes of one id (a special id gives its name's UTF-8), for streaming decoders. */
  tokenBytes(id: number): Uint8Array;
}
