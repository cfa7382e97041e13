import type { LoadOptions, LoadProgress, ReplyConstraint } from '../../src/engine/contract';
import type { ModelEntry } from '../../src/engine/model-list';
import type { ResolvedSampling, TopLogits } from '../sampler';

/**
 * Chooses the next token from the logits after a step. `fromTop`, when present, may decide from the
 * largest logits alone (null: it cannot, the full vector is needed); a runtime that keeps the logits
 * on its side uses it to avoid handing over the whole vocabulary. Neither has side effects until it
 * returns a token.
 */
export interface Pick {
  (logits: Float32Array): number;
  fromTop?: (top: TopLogits) => number | null;
}

/**
 * One KV cache of a LogitsBackend: the ids fed so far. The engine owns the bookkeeping of which ids
 * it holds (PrefixCache); the sequence only runs the model.
 */
export interface LogitsSequence {
  /**
   * Appends `ids` (at least one) to the KV cache and returns the token `pick` chooses from the
   * logits after the last of them. `pick` may modify the logits in place; the chosen token is not fed.
   */
  step(ids: readonly number[], pick: Pick): Promise<number>;
  /**
   * Keeps the first `n` positions of the KV cache (0 < n < its length) and drops the rest. Absent
   * when the runtime cannot roll back: the engine then resets and prefills the whole prompt.
   */
  truncate?(n: number): Promise<void>;
  /** Empties the KV cache: the next step starts at position 0. */
  reset(): Promise<void>;
}

/** A sequence the backend opened beside its own: closing it frees its cache, not the model. */
export interface OpenedSequence extends LogitsSequence {
  close(): Promise<void>;
}

/**
 * A runtime that hands us logits; our sampler picks every token. It is itself one sequence; a runtime
 * that can hold several KV caches on the same weights opens more (`openSequence`). The engine never
 * runs two steps of one backend at once.
 */
export interface LogitsBackend extends LogitsSequence {
  readonly kind: 'logits';
  /** Where it runs, in words: "webgpu", "wasm", "cpu". */
  readonly device: string;
  /** Most ids one prefill step feeds (the engine cuts a longer prompt into steps); absent: no limit. */
  readonly prefillChunk?: number;
  /** Positions its KV cache holds, when the runtime fixes them (a GGUF's context); the engine uses the smaller of this and the entry's. */
  readonly contextWindow?: number;
  /** Bytes one position of a KV cache takes, when known: LoadOptions.kvCacheBytes bounds the slots with it. */
  readonly kvBytesPerToken?: number;
  /** Sequences it can hold at once, its own included, when the runtime fixes them; absent: as many as `openSequence` gives. */
  readonly maxSequences?: number;
  /** Another, empty KV cache on the same weights. Absent: the backend holds one sequence only. */
  openSequence?(): Promise<OpenedSequence>;
  /** Frees the model and every cache. The backend is unusable afterwards. */
  dispose(): Promise<void>;
}

/** What a far-side sampler is asked for: the whole prompt and every setting it must apply. */
export interface SamplingRequest {
  /** The whole prompt; the far side reuses what it can of its own cache. */
  prompt: readonly number[];
  /** Resolved settings. `logitBias` already holds the engine's bans as -Infinity. */
  sampling: ResolvedSampling;
  /** The request's seed (the engine always chooses one). */
  seed: number;
  /** Most ids to sample, a stop id included. */
  maxTokens: number;
  /** Sampling one of these ends the generation; it is streamed as the last id. */
  stopIds: readonly number[];
  /**
   * The language the whole reply must be in, enforced by the far side's own grammar engine (in its
   * dialect); a far side that cannot enforce it refuses the request (EngineError `invalid_constraint`).
   */
  constraint?: ReplyConstraint;
  /** Requests of different salts must never share the far side's cached ids. */
  cacheSalt?: string;
}

export interface SamplingOutcome {
  /** Prompt ids the far side reports it reused from its cache; null when it does not say. */
  reusedTokens: number | null;
}

/**
 * A runtime that samples on its own side (llama-server, vLLM): we send ids and settings, it streams
 * ids back, ending with the stop id that fired (if one did). Its cache is its own business; it says
 * how much of the prompt it reused.
 */
export interface SamplingBackend {
  readonly kind: 'sampling';
  readonly device: string;
  /** Tokens the far side gives one request, when it says; the engine uses the smaller of this and the entry's. */
  readonly contextWindow?: number;
  /** The model's name as the far side reports it (a server's served model), when it names one. */
  readonly modelName?: string;
  /**
   * Streams sampled ids to `onIds`, in order, until a stop id (streamed last), `maxTokens` ids, or an
   * abort of `signal` (then it resolves with what it has or rejects with an AbortError: the engine
   * treats both as an abort). Failures reject with EngineError.
   */
  generate(request: SamplingRequest, onIds: (ids: number[]) => void, signal: AbortSignal): Promise<SamplingOutcome>;
  dispose(): Promise<void>;
}

export type Backend = LogitsBackend | SamplingBackend;

export interface BackendLoadContext {
  entry: ModelEntry;
  options: LoadOptions;
  onProgress: (p: LoadProgress) => void;
  signal: AbortSignal;
}

export type BackendFactory = (ctx: BackendLoadContext) => Promise<Backend>;
