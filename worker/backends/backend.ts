import type { LoadOptions, LoadProgress } from '../../src/engine/contract';
import type { ModelEntry } from '../../src/engine/model-list';

/**
 * One model runtime with one KV cache (one sequence). The engine owns the bookkeeping of what the
 * cache holds (PrefixCache) and the sampler; a backend only runs the model.
 */
export interface Backend {
  /** Where it runs, in words: "webgpu", "wasm", "cpu". */
  readonly device: string;
  /**
   * Appends `ids` (at least one) to the KV cache and returns the token `pick` chooses from the
   * logits after the last of them. The chosen token is not fed.
   */
  step(ids: readonly number[], pick: (logits: Float32Array) => number): Promise<number>;
  /** Empties the KV cache: the next step starts at position 0. */
  reset(): Promise<void>;
  /** Frees the model and its cache. The backend is unusable afterwards. */
  dispose(): Promise<void>;
  /** Test hook: lose the GPU device the way a driver reset would. */
  loseDevice?(): Promise<void>;
}

export interface BackendLoadContext {
  entry: ModelEntry;
  options: LoadOptions;
  onProgress: (p: LoadProgress) => void;
  signal: AbortSignal;
}

export type BackendFactory = (ctx: BackendLoadContext) => Promise<Backend>;
