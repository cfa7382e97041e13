/**
 * The engine: one model, one KV cache, our sampler — ids in, ids out. Runs inside the Web Worker
 * (worker/engine.worker.ts exposes it) and directly in Node. Requests are served one at a time, in order.
 * Nothing here knows text: the page renders, counts and decodes with its own tokenizer.
 *
 * Invariants:
 * - For a LogitsBackend, `cache` lists exactly the ids its KV cache holds; each request keeps the
 *   longest common prefix and prefills only the rest. Any failure inside the backend clears both, so
 *   a later request can never reuse a cache in an unknown state; a lost device unloads the model.
 * - Both kinds of backend give the same result semantics: which stop fired (and its id), the ids
 *   without the terminator, structural special ids never sampled, a forced continuation honoured,
 *   an abort as a result (`stop: 'abort'`, the ids so far), never as an error.
 */
import type { GenerateRequest, GenerateResult, GpuCapabilities, LoadedModelInfo, LoadOptions, LoadProgress, ModelRef } from '../src/engine/contract';
import { abortError, EngineError } from '../src/engine/errors';
import { findModel, type ModelEntry } from '../src/engine/model-list';
import { entryForRef } from '../src/engine/model-source';
import { VOCAB_SIZE } from '../src/format/special-tokens';
import type { Backend, BackendFactory } from './backends/backend';
import { prepareRequest, type Generated } from './generation';
import { openConstraint, type ConstraintSession } from './grammar/constraint-session';
import type { GrammarCompiler } from './grammar/grammar-compiler';
import { IdBatcher } from './id-batcher';
import { generateWithLogits } from './logits-generation';
import { PrefixCache } from './prefix-cache';
import { createSampler } from './sampler';
import { generateWithSampler } from './sampling-generation';

export { DEFAULT_MAX_TOKENS } from './generation';

export interface EngineDeps {
  models: readonly ModelEntry[];
  createBackend: BackendFactory;
  capabilities: () => Promise<GpuCapabilities>;
  /** Compiles the constraints requests carry; without it a constrained request is refused. */
  grammars?: GrammarCompiler;
}

interface Loaded {
  entry: ModelEntry;
  backend: Backend;
  info: LoadedModelInfo;
}

export class Engine {
  private loaded: Loaded | null = null;
  private readonly cache = new PrefixCache();
  private readonly sample = createSampler(VOCAB_SIZE);
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: EngineDeps) {}

  capabilities(): Promise<GpuCapabilities> {
    return this.deps.capabilities();
  }

  /**
   * Loads a model (unloading the current one): a models.json id, or a model the user names (a GGUF,
   * an engine server; checked here, since it arrives as data). Rejects with EngineError or AbortError.
   */
  load(model: ModelRef, options: LoadOptions = {}, onProgress?: (p: LoadProgress) => void, signal?: AbortSignal): Promise<LoadedModelInfo> {
    return this.serialized(async () => {
      const entry = entryForRef(model, (id) => findModel(this.deps.models, id));
      if (signal?.aborted) throw abortError('load aborted');
      await this.unloadNow();
      const backend = await this.deps.createBackend({
        entry,
        options,
        onProgress: onProgress ?? (() => {}),
        signal: signal ?? new AbortController().signal,
      });
      if (signal?.aborted) {
        await backend.dispose();
        throw abortError('load aborted');
      }
      const info: LoadedModelInfo = {
        modelId: (typeof model !== 'string' && backend.kind === 'sampling' && backend.modelName) || entry.id,
        backend: entry.backend,
        // The runtime may give a sequence less than the entry says (a server's -c, a GGUF's context).
        contextWindow: Math.min(entry.contextWindow, backend.contextWindow ?? Infinity),
        toolCalling: entry.toolCalling,
        device: backend.device,
        sampling: { ...entry.sampling },
      };
      this.loaded = { entry, backend, info };
      return info;
    });
  }

  unload(): Promise<void> {
    return this.serialized(() => this.unloadNow());
  }

  /** Info on the loaded model, or null. */
  get model(): LoadedModelInfo | null {
    return this.loaded?.info ?? null;
  }

  /** The ids a logits backend's KV cache holds (for tests and the inspector); [] for a far-side sampler. */
  cachedIds(): number[] {
    return this.cache.ids();
  }

  /**
   * Generates until a stop id, maxTokens or an abort, streaming the emitted ids to `onIds` in batches
   * (all of them delivered before this resolves). Rejects with EngineError; RangeError for sampling
   * settings that mean nothing.
   */
  generate(request: GenerateRequest, onIds?: (ids: number[]) => void, signal?: AbortSignal): Promise<GenerateResult> {
    return this.serialized(() => this.generateNow(request, onIds, signal));
  }

  private async generateNow(request: GenerateRequest, onIds?: (ids: number[]) => void, signal?: AbortSignal): Promise<GenerateResult> {
    const loaded = this.loaded;
    if (!loaded) throw new EngineError('not_loaded', 'no model is loaded: call load() first');
    const prepared = prepareRequest(request, loaded.info.contextWindow);
    if (prepared.logprobs !== null && loaded.backend.kind === 'sampling') {
      throw new EngineError('invalid_request', 'log probabilities come from the logits, which an engine server keeps on its side: not available here');
    }
    const batcher = new IdBatcher(onIds);
    // Opened before the backend is touched: a constraint that cannot be followed leaves the cache as it was.
    const constraint = loaded.backend.kind === 'logits' && request.constraint ? await this.openConstraint(request) : null;
    let result: Generated;
    try {
      result =
        loaded.backend.kind === 'logits'
          ? await generateWithLogits(loaded.backend, this.cache, this.sample, prepared, batcher, signal, constraint)
          : await generateWithSampler(loaded.backend, prepared, batcher, signal, request.constraint);
    } catch (e) {
      await this.afterBackendFailure(loaded, e);
      throw e instanceof EngineError ? e : new EngineError('internal', `generation failed: ${errorMessage(e)}`);
    } finally {
      constraint?.dispose();
    }
    batcher.flush();
    // The consumer's own callback failed: the generation stopped at a token boundary, the cache is consistent.
    if (batcher.failure) throw batcher.failure.error;
    return result;
  }

  private async openConstraint(request: GenerateRequest): Promise<ConstraintSession> {
    if (!this.deps.grammars) throw new EngineError('invalid_constraint', 'this engine has no grammar engine: constraints are not available');
    try {
      return await openConstraint(request.constraint!, this.deps.grammars);
    } catch (e) {
      throw e instanceof EngineError ? e : new EngineError('internal', `the grammar engine failed: ${errorMessage(e)}`);
    }
  }

  /** The backend's cache is in an unknown state: forget it; a lost device unloads the model. */
  private async afterBackendFailure(loaded: Loaded, e: unknown): Promise<void> {
    this.cache.clear();
    if (e instanceof EngineError && e.code === 'device_lost') {
      this.loaded = null;
      await loaded.backend.dispose().catch(() => {});
      return;
    }
    if (loaded.backend.kind === 'logits') await loaded.backend.reset().catch(() => {});
  }

  private async unloadNow(): Promise<void> {
    const loaded = this.loaded;
    this.loaded = null;
    this.cache.clear();
    if (loaded) await loaded.backend.dispose();
  }

  /** Runs requests one after another: one model, one cache. */
  private serialized<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => {});
    return run;
  }
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
