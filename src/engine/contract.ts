/**
 * The worker contract, types only: the worker `expose`s an EngineApi, the main thread `wrap`s it.
 * Everything here crosses postMessage, so it is structured-cloneable data (no functions, no classes),
 * except the callbacks, which travel as comlink proxies, and the abort port, which is transferred.
 */

/** Sampling settings; defaults are Llama 3.1's generation config. */
export interface SamplingParams {
  /** 0 = greedy. Default 0.6. */
  temperature?: number;
  /** Nucleus mass; 1 = off. Default 0.9. */
  topP?: number;
  /** Keep the k most likely; 0 = off. Default 0. */
  topK?: number;
  /** Drop tokens below minP × the top probability; 0 = off. Default 0. */
  minP?: number;
  /** Divides positive logits (multiplies negative ones) of tokens seen in the penalty window; 1 = off. */
  repetitionPenalty?: number;
  /** Subtracts count × this from a seen token's logit; 0 = off. */
  frequencyPenalty?: number;
  /** Subtracts this once from a seen token's logit; 0 = off. */
  presencePenalty?: number;
  /** How many of the latest ids (prompt and generated) the penalties look at. Default 64. */
  penaltyWindow?: number;
  /** Added to the logits of the given ids (token id → bias); -Infinity bans a token. */
  logitBias?: Record<number, number>;
  /** Seed of the RNG; same seed, same logits → same tokens. Default: random. */
  seed?: number;
}

/**
 * A logits processor, as data (functions cannot cross the worker boundary): applied in order
 * before sampling. `force` makes step i emit tokens[i] (then stops forcing); `ban` removes ids.
 */
export type LogitsProcessorSpec = { type: 'force'; tokens: number[] } | { type: 'ban'; tokens: number[] };

/** A JSON Schema, as data. */
export type JsonSchema = Record<string, unknown> | boolean;

/**
 * What the emitted text must be, enforced token by token: the worker compiles it (XGrammar) and masks
 * the logits before the sampler, so a finished generation is always in the language it names. The
 * constraint's state belongs to the generation, never to the KV cache.
 */
export type Constraint =
  /** The whole reply is one JSON value valid against `schema` (Python's separators, no other whitespace), then eot. */
  | { type: 'json_schema'; schema: JsonSchema }
  /** The whole reply is any JSON object, then eot. */
  | { type: 'json_object' }
  /** The whole reply is a string of this EBNF grammar (XGrammar's dialect, GBNF-like; the root rule is `root`), then eot. */
  | { type: 'grammar'; grammar: string }
  | ToolCallConstraint;

/** A constraint on the whole reply (every kind but tool calls): what an engine server is sent in its own dialect. */
export type ReplyConstraint = Exclude<Constraint, ToolCallConstraint>;

/** A custom tool as the constraint sees it: its name and the JSON schema of its parameters. */
export interface ConstrainedTool {
  name: string;
  parameters: JsonSchema;
}

/** Llama 3.1's built-in tools as a constraint names them. */
export type ConstrainedBuiltin = 'brave_search' | 'wolfram_alpha' | 'code_interpreter';

/**
 * Calls in Llama 3.1's exact format (shared/FORMAT.md): a custom call `{"name": <an offered name>,
 * "parameters": <that tool's schema>}` then eot; or `<|python_tag|>` (id 128010) then
 * `brave_search.call(query="…")` / `wolfram_alpha.call(query="…")` of an offered built-in, or code when
 * `code_interpreter` is offered, then eom.
 * - `auto`: prose is free; once a call starts (the tag, or a custom call's `{` at the reply's start) it
 *   follows the grammar.
 * - `required`: the reply is a call (of the offered tools; offer one to force it).
 * - `none`: the tag and a custom call's opening are never sampled.
 */
export interface ToolCallConstraint {
  type: 'tool_calls';
  mode: 'auto' | 'required' | 'none';
  tools: ConstrainedTool[];
  builtins: ConstrainedBuiltin[];
}

export interface GenerateRequest {
  /**
   * The whole prompt as ids. The engine keeps the longest common prefix of what its KV cache holds and
   * this prompt, rolls the cache back to it, and prefills only the rest (at least one id).
   */
  tokens: number[];
  sampling?: SamplingParams;
  /** Upper bound on generated tokens (the terminator included). Default 1024. */
  maxTokens?: number;
  logitsProcessors?: LogitsProcessorSpec[];
  /**
   * The language the reply must be in. A forced continuation (a `force` processor) is emitted as
   * forced; when the constraint cannot follow it, the constraint is dropped for the rest of that
   * generation. A constraint that does not compile, or admits no reply, is refused (EngineError
   * `invalid_constraint`) before anything is generated, the KV cache untouched.
   * On an engine server (backend `remote`) the server enforces a whole-reply constraint itself and
   * refuses what it cannot parse (`invalid_constraint`, its reason); `tool_calls` is not enforced there
   * (forced openings and bans hold a tool choice), and a whole-reply constraint after a forced
   * continuation is refused.
   */
  constraint?: Constraint;
  /**
   * The KV cache is shared only between requests with the same salt (absent: the empty salt): a prompt
   * never reuses ids cached for another salt, so one client cannot learn from the cache what another sent.
   */
  cacheSalt?: string;
  /**
   * Report each emitted id's log probability and this many most likely alternatives (0 to 20; absent:
   * none), from the distribution the sampler was given: the model's, with bans and the constraint
   * applied, before temperature, penalties, bias and truncation. Only where we sample ourselves; ids
   * are then sampled one by one (no jump-forward).
   */
  logprobs?: number;
}

/** One emitted id's log probability and the most likely ids at its position. */
export interface TokenLogprob {
  id: number;
  logprob: number;
  top: Array<{ id: number; logprob: number }>;
}

export type StopReason = 'eom' | 'eot' | 'end_of_text' | 'length' | 'abort';

export interface GenerateStats {
  /** Length of the request's prompt. */
  promptTokens: number;
  /**
   * Prompt ids already in the KV cache (not recomputed). For a backend that samples on its own side,
   * what it reports; null when it reports nothing (unknown, not zero).
   */
  reusedTokens: number | null;
  /** Prompt ids run through the model this call (promptTokens - reusedTokens); null when that is unknown. */
  prefilledTokens: number | null;
  /** Tokens generated (the terminator included), jump-forward ids among them. */
  decodedTokens: number;
  /** Of those, ids a constraint forced and the engine fed without sampling them one by one (jump-forward); absent when none. */
  forwardedTokens?: number;
  prefillMs: number;
  decodeMs: number;
}

export interface GenerateResult {
  /** Emitted ids, without the terminator. */
  tokens: number[];
  stop: StopReason;
  /** The stop id that ended the generation (128008, 128009 or 128001), or null for length and abort. */
  stopId: number | null;
  stats: GenerateStats;
  /** One per emitted id, when the request asked (GenerateRequest.logprobs). */
  logprobs?: TokenLogprob[];
}

export interface LoadProgress {
  loadedBytes: number;
  totalBytes: number;
  text: string;
}

export interface LoadedModelInfo {
  /** The models.json id; for a model the user named, the GGUF's file name or the server's model name. */
  modelId: string;
  backend: BackendKind;
  contextWindow: number;
  /** Whether the checkpoint was trained on Llama 3.1's tool format (eom, python_tag, ipython). */
  toolCalling: boolean;
  device: string;
  /** Sampling this model needs over the user's defaults (the micro model is greedy); {} when none. */
  sampling: SamplingParams;
}

/**
 * webllm and onnx run in the page's worker; llamacpp runs a GGUF through node-llama-cpp (Node only);
 * remote is an engine server (vLLM, llama-server) that samples on its side.
 */
export type BackendKind = 'webllm' | 'onnx' | 'llamacpp' | 'remote';

/**
 * A model the user names when loading it, not an entry of models.json (src/engine/model-source.ts
 * validates it): a GGUF file on disk (Node only), or an engine server by URL and, for servers that
 * serve several, the model's name. An API key is never part of it: Node reads it from the
 * environment, a page never holds one (the dev/preview server's /api/engine/ adds it).
 */
export type ModelSource = { kind: 'gguf'; path: string } | { kind: 'server'; url: string; model?: string };

/** What a load names: a models.json id, or a model the user chose. */
export type ModelRef = string | ModelSource;

/** Where the onnx backend runs. `auto` prefers WebGPU, falls back to WASM. */
export type OnnxDevice = 'auto' | 'webgpu' | 'wasm' | 'cpu';

export interface LoadOptions {
  /** onnx backend only. */
  device?: OnnxDevice;
  /**
   * KV caches (slots) the engine keeps for a backend that gives it logits, 1 to 64 (default 1): requests
   * on different slots advance step by step in turn, and each request goes to the slot that holds most
   * of its prompt. Each slot may hold a whole context window. web-llm holds one; an engine server slots
   * on its own side.
   */
  slots?: number;
  /**
   * Most bytes the slots' KV caches may hold together, for a backend that says what a position costs
   * (onnx). Past it the least recently used idle slot is emptied; a generation that still does not fit
   * fails with `insufficient_memory`, the other slots untouched. Default: no bound but each slot's
   * context window.
   */
  kvCacheBytes?: number;
}

/** How many generations an engine runs at once, and how many KV caches serve them. */
export interface SlotUsage {
  /** KV caches the engine keeps; null when the far side keeps its own (an engine server) and takes every request at once. */
  slots: number | null;
  /** Generations holding a slot now. */
  busy: number;
}

/** An error as it crosses the boundary: rebuilt as an EngineError (or an AbortError) on the other side. */
export interface SerializedError {
  name: string;
  code: string;
  message: string;
}

export interface GpuCapabilities {
  webgpu: boolean;
  shaderF16: boolean;
  adapter: { vendor: string; architecture: string; description: string } | null;
  limits: { maxBufferSize: number; maxStorageBufferBindingSize: number } | null;
  /** Why WebGPU is unusable, in plain words, when it is. */
  reason?: string;
  /** WASM: the threads onnxruntime-web uses (more than one only in a cross-origin isolated page). */
  wasm?: { threads: number; crossOriginIsolated: boolean };
}

/**
 * What the worker exposes: the model only — ids in, ids out. Text never crosses: the page renders,
 * counts, cuts and decodes with its own tokenizer. `signalPort` carries the request's abort (see
 * src/engine/abort-port.ts); `onIds` receives the emitted ids in batches, in order, before the result.
 */
export interface EngineApi {
  configure(config: EngineConfig): Promise<void>;
  capabilities(): Promise<GpuCapabilities>;
  load(model: ModelRef, options: LoadOptions, onProgress: ((p: LoadProgress) => void) | undefined, signalPort?: MessagePort): Promise<LoadedModelInfo>;
  unload(): Promise<void>;
  /** The model loaded now (after a failed load: the one that kept running, or null). */
  loaded(): Promise<LoadedModelInfo | null>;
  generate(request: GenerateRequest, onIds: ((ids: number[]) => void) | undefined, signalPort?: MessagePort): Promise<GenerateResult>;
}

/** Where the worker finds its files (absolute URLs ending in "/"). */
export interface EngineConfig {
  /** Model folders, the tokenizer and models.json's local copies: e.g. https://host/models/ */
  modelsBaseUrl: string;
  /** onnxruntime-web's wasm files: e.g. https://host/ort/ */
  wasmBaseUrl: string;
}

/** What the agent loop needs from an engine: the worker client and the in-process Engine both fit. */
export interface EngineLike {
  generate(request: GenerateRequest, onIds?: (ids: number[]) => void, signal?: AbortSignal): Promise<GenerateResult>;
}
