/**
 * The engine: one model, its KV caches (slots), our sampler — ids in, ids out. Runs inside the Web
 * Worker (worker/engine.worker.ts exposes it) and directly in Node. Nothing here knows text: the page
 * renders, counts and decodes with its own tokenizer.
 *
 * Scheduling: load and unload run alone; generations run beside each other. On a LogitsBackend each
 * generation takes a slot (slot-pool.ts: the one holding most of its prompt) and the generations on
 * different slots advance one backend step each in turn; with every slot busy, requests wait in
 * arrival order. A SamplingBackend gets every request at once: the far side slots and batches them.
 *
 * Invariants:
 * - Each slot's PrefixCache lists exactly the ids its KV cache holds; each request keeps the longest
 *   common prefix and prefills only the rest. A failure inside the backend clears that slot's cache
 *   and bookkeeping only, so a later request can never reuse a cache in an unknown state; a lost
 *   device unloads the model for every slot.
 * - Both kinds of backend give the same result semantics: which stop fired (and its id), the ids
 *   without the terminator, structural special ids never sampled, a forced continuation honoured,
 *   an abort as a result (`stop: 'abort'`, the ids so far), never as an error.
 */
import type { GenerateRequest, GenerateResult, GpuCapabilities, LoadedModelInfo, LoadOptions, LoadProgress, ModelRef, SlotUsage } from '../src/engine/contract';
import { abortError, EngineError } from '../src/engine/errors';
import { findModel, type ModelEntry } from '../src/engine/model-list';
import { entryForRef } from '../src/engine/model-source';
import { VOCAB_SIZE } from '../src/format/special-tokens';
import type { Backend, BackendFactory, SamplingBackend } from './backends/backend';
import { emptyStats, prepareRequest, type Generated, type PreparedRequest } from './generation';
import { openConstraint, type ConstraintSession } from './grammar/constraint-session';
import type { GrammarCompiler } from './grammar/grammar-compiler';
import { IdBatcher } from './id-batcher';
import { generateWithLogits } from './logits-generation';
import { ReadWriteGate } from './read-write-gate';
import { createSampler } from './sampler';
import { generateWithSampler } from './sampling-generation';
import { SlotPool, type Slot } from './slot-pool';

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
  /** The KV caches of a logits backend; null for a far-side sampler. */
  slots: SlotPool | null;
}

/** Most slots a load may ask for. */
export const MAX_SLOTS = 64;

export class Engine {
  private loaded: Loaded | null = null;
  private readonly sample = createSampler(VOCAB_SIZE);
  private readonly gate = new ReadWriteGate();

  constructor(private readonly deps: EngineDeps) {}

  capabilities(): Promise<GpuCapabilities> {
    return this.deps.capabilities();
  }

  /**
   * Loads a model: a models.json id, or a model the user names (a GGUF, an engine server; checked
   * here, since it arrives as data). Rejects with EngineError or AbortError. The model that was
   * running stays loaded until the new one is ready, and stays when the load fails or is aborted —
   * except a load that runs out of memory beside it: the running model is then unloaded to make room
   * and the load tried once more (`model` says what is loaded after a failure).
   */
  load(model: ModelRef, options: LoadOptions = {}, onProgress?: (p: LoadProgress) => void, signal?: AbortSignal): Promise<LoadedModelInfo> {
    return this.gate.write(async () => {
      const entry = entryForRef(model, (id) => findModel(this.deps.models, id));
      const slots = slotCount(options.slots);
      const budget = kvCacheBudget(options.kvCacheBytes);
      if (signal?.aborted) throw abortError('load aborted');
      const create = () =>
        this.deps.createBackend({
          entry,
          options,
          onProgress: onProgress ?? (() => {}),
          signal: signal ?? new AbortController().signal,
        });
      let backend: Backend;
      try {
        backend = await create();
      } catch (e) {
        if (!this.loaded || signal?.aborted || !OUT_OF_MEMORY.test(errorMessage(e))) throw e;
        await this.unloadNow();
        backend = await create();
      }
      if (signal?.aborted) {
        await backend.dispose();
        throw abortError('load aborted');
      }
      await this.unloadNow();
      const info: LoadedModelInfo = {
        modelId: (typeof model !== 'string' && backend.kind === 'sampling' && backend.modelName) || entry.id,
        backend: entry.backend,
        // The runtime may give a sequence less than the entry says (a server's -c, a GGUF's context).
        contextWindow: Math.min(entry.contextWindow, backend.contextWindow ?? Infinity),
        toolCalling: entry.toolCalling,
        device: backend.device,
        sampling: { ...entry.sampling },
      };
      const pool = backend.kind === 'logits' ? new SlotPool(backend, Math.min(slots, backend.maxSequences ?? (backend.openSequence ? slots : 1)), budget) : null;
      this.loaded = { entry, backend, info, slots: pool };
      return info;
    });
  }

  unload(): Promise<void> {
    return this.gate.write(() => this.unloadNow());
  }

  /** Info on the loaded model, or null. */
  get model(): LoadedModelInfo | null {
    return this.loaded?.info ?? null;
  }

  /** The ids the KV cache used last holds (for tests and the inspector); [] for a far-side sampler. */
  cachedIds(): number[] {
    return this.loaded?.slots?.recentIds() ?? [];
  }

  /** The ids each slot's KV cache holds, in slot order; [] for a far-side sampler or nothing loaded. */
  cachedSlots(): number[][] {
    return this.loaded?.slots?.slotIds() ?? [];
  }

  /** The slots of the loaded model and how many are serving; null when nothing is loaded. */
  slotUsage(): SlotUsage | null {
    const loaded = this.loaded;
    if (!loaded) return null;
    return loaded.slots ? { slots: loaded.slots.capacity, busy: loaded.slots.busy } : { slots: null, busy: 0 };
  }

  /**
   * Generates until a stop id, maxTokens or an abort, streaming the emitted ids to `onIds` in batches
   * (all of them delivered before this resolves). Rejects with EngineError; RangeError for sampling
   * settings that mean nothing.
   */
  generate(request: GenerateRequest, onIds?: (ids: number[]) => void, signal?: AbortSignal): Promise<GenerateResult> {
    return this.gate.read(() => this.generateNow(request, onIds, signal));
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
      result = loaded.slots
        ? await this.generateOnSlot(loaded, loaded.slots, prepared, batcher, signal, constraint)
        : await this.generateFarSide(loaded, loaded.backend as SamplingBackend, prepared, batcher, signal, request.constraint);
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

  /** Waits for a slot, generates on it, gives it back; a failure clears that slot only. */
  private async generateOnSlot(
    loaded: Loaded,
    pool: SlotPool,
    prepared: PreparedRequest,
    batcher: IdBatcher,
    signal: AbortSignal | undefined,
    constraint: ConstraintSession | null,
  ): Promise<Generated> {
    const slot = await pool.acquire(prepared.tokens, prepared.cacheSalt, signal);
    if (!slot) return { tokens: [], stop: 'abort', stopId: null, stats: emptyStats(prepared.tokens.length) };
    try {
      return await generateWithLogits(slot.sequence, slot.cache, this.sample, prepared, batcher, signal, constraint);
    } catch (e) {
      throw await this.afterSlotFailure(loaded, pool, slot, e);
    } finally {
      pool.release(slot);
    }
  }

  /** Hands the request to the far side at once (it slots and batches on its own). */
  private async generateFarSide(
    loaded: Loaded,
    backend: SamplingBackend,
    prepared: PreparedRequest,
    batcher: IdBatcher,
    signal: AbortSignal | undefined,
    constraint: GenerateRequest['constraint'],
  ): Promise<Generated> {
    try {
      return await generateWithSampler(backend, prepared, batcher, signal, constraint);
    } catch (e) {
      if (e instanceof EngineError && e.code === 'device_lost' && this.loaded === loaded) {
        this.loaded = null;
        await backend.dispose().catch(() => {});
      }
      throw e instanceof EngineError ? e : new EngineError('internal', `generation failed: ${errorMessage(e)}`);
    }
  }

  /**
   * The slot's cache is in an unknown state: forget it and empty it; a lost device unloads the model
   * for every slot. Returns the error to report.
   */
  private async afterSlotFailure(loaded: Loaded, pool: SlotPool, slot: Slot, e: unknown): Promise<EngineError> {
    slot.cache.clear();
    const lost = (e instanceof EngineError && e.code === 'device_lost') || pool.disposed;
    if (lost) {
      if (this.loaded === loaded) this.loaded = null;
      if (!pool.disposed) await pool.dispose().catch(() => {});
      return e instanceof EngineError && e.code === 'device_lost' ? e : new EngineError('device_lost', 'the GPU device was lost; load the model again');
    }
    await slot.sequence.reset().catch(() => {});
    if (e instanceof EngineError) return e;
    if (OUT_OF_MEMORY.test(errorMessage(e))) {
      return new EngineError('insufficient_memory', `KV cache ${slot.index + 1} ran out of memory (the other slots are untouched): ${errorMessage(e)}`);
    }
    return new EngineError('internal', `generation failed: ${errorMessage(e)}`);
  }

  private async unloadNow(): Promise<void> {
    const loaded = this.loaded;
    this.loaded = null;
    if (!loaded) return;
    if (loaded.slots) await loaded.slots.dispose();
    else await loaded.backend.dispose();
  }
}

/** The bound on the slots' KV-cache memory a load asks for: a positive whole number of bytes, or none. */
function kvCacheBudget(bytes: number | undefined): number | null {
  if (bytes === undefined) return null;
  if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new EngineError('invalid_request', `kvCacheBytes must be a positive whole number of bytes, got ${String(bytes)}`);
  return bytes;
}

/** What runtimes say when an allocation fails (onnxruntime, WebGPU, V8). */
const OUT_OF_MEMORY = /out of memory|failed to allocate|bad_alloc|allocation failed|array buffer allocation/i;

/** The slots a load asks for: a whole number from 1 to MAX_SLOTS (default 1). */
function slotCount(slots: number | undefined): number {
  if (slots === undefined) return 1;
  if (!Number.isInteger(slots) || slots < 1 || slots > MAX_SLOTS) {
    throw new EngineError('invalid_request', `slots must be a whole number from 1 to ${MAX_SLOTS}, got ${String(slots)}`);
  }
  return slots;
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
