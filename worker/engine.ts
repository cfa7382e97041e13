/**
 * The engine: one model, one KV cache, our sampler. Runs inside the Web Worker (worker/engine.worker.ts
 * exposes it) and directly in Node for tests. Requests are served one at a time, in order.
 *
 * Invariant: `cache` lists exactly the ids the backend's KV cache holds. Any failure inside the
 * backend clears both, so a later request can never reuse a cache in an unknown state.
 */
import type {
  GenerateRequest, GenerateResult, GpuCapabilities, LoadedModelInfo, LoadOptions, LoadProgress, StopReason, TokenBatch,
} from '../src/engine/contract';
import { abortError, EngineError } from '../src/engine/errors';
import { findModel, type ModelEntry } from '../src/engine/model-list';
import { stopKind, VOCAB_SIZE } from '../src/format/special-tokens';
import { segmentsToIds } from '../src/format/render';
import type { Segment, TextTokenizer } from '../src/format/types';
import type { Backend, BackendFactory } from './backends/backend';
import { banStructuralTokens, createLogitsProcessors } from './logits-processors';
import { PrefixCache } from './prefix-cache';
import { createRng, randomSeed } from './rng';
import { createSampler, resolveSampling } from './sampler';
import { StreamDecoder } from './stream-decoder';
import { TokenBatcher } from './token-batcher';
import { yieldToEventLoop } from './yield';

export const DEFAULT_MAX_TOKENS = 1024;

const STRUCTURAL_BAN = banStructuralTokens();

export interface EngineDeps {
  models: readonly ModelEntry[];
  loadTokenizer: () => Promise<TextTokenizer>;
  createBackend: BackendFactory;
  capabilities: () => Promise<GpuCapabilities>;
}

interface Loaded {
  entry: ModelEntry;
  backend: Backend;
  info: LoadedModelInfo;
}

export class Engine {
  private loaded: Loaded | null = null;
  private tokenizer: TextTokenizer | null = null;
  private readonly cache = new PrefixCache();
  private readonly sample = createSampler(VOCAB_SIZE);
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: EngineDeps) {}

  capabilities(): Promise<GpuCapabilities> {
    return this.deps.capabilities();
  }

  /** Loads a model (unloading the current one). Rejects with EngineError or AbortError. */
  load(modelId: string, options: LoadOptions = {}, onProgress?: (p: LoadProgress) => void, signal?: AbortSignal): Promise<LoadedModelInfo> {
    return this.serialized(async () => {
      const entry = findModel(this.deps.models, modelId);
      if (!entry) throw new EngineError('unknown_model', `no model "${modelId}" in models.json`);
      throwIfAborted(signal);
      await this.unloadNow();
      this.tokenizer ??= await this.deps.loadTokenizer();
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
        modelId: entry.id,
        backend: entry.backend,
        contextWindow: entry.contextWindow,
        toolCalling: entry.toolCalling,
        device: backend.device,
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

  /** The ids the KV cache holds (for tests and the inspector). */
  cachedIds(): number[] {
    return this.cache.ids();
  }

  /**
   * Generates until a stop id, maxTokens or an abort. Prefills only what extends the cached ids;
   * anything else resets the cache and prefills everything. An abort is a result (`stop: 'abort'`,
   * the tokens so far), not an error; the engine stays usable and its cache consistent.
   */
  generate(request: GenerateRequest, onTokens?: (batch: TokenBatch) => void, signal?: AbortSignal): Promise<GenerateResult> {
    return this.serialized(() => this.generateNow(request, onTokens, signal));
  }

  async tokenize(text: string): Promise<number[]> {
    return (await this.getTokenizer()).encode(text);
  }

  async countTokens(text: string): Promise<number> {
    return (await this.getTokenizer()).encode(text).length;
  }

  async decode(tokens: number[]): Promise<string> {
    return (await this.getTokenizer()).decode(tokens);
  }

  async encodeSegments(segments: Segment[]): Promise<number[]> {
    return segmentsToIds(segments, await this.getTokenizer());
  }

  async loseDevice(): Promise<void> {
    const backend = this.loaded?.backend;
    if (!backend?.loseDevice) throw new EngineError('invalid_request', 'the loaded backend has no GPU device to lose');
    await backend.loseDevice();
  }

  private async generateNow(request: GenerateRequest, onTokens?: (batch: TokenBatch) => void, signal?: AbortSignal): Promise<GenerateResult> {
    const loaded = this.loaded;
    if (!loaded) throw new EngineError('not_loaded', 'no model is loaded: call load() first');
    const tokenizer = await this.getTokenizer();
    const { tokens } = request;
    validateTokens(tokens);
    const window = loaded.entry.contextWindow;
    if (tokens.length >= window) {
      throw new EngineError(
        'context_overflow',
        `the prompt has ${tokens.length} tokens and the context window is ${window}: nothing left to generate into`,
      );
    }
    const maxTokens = Math.min(request.maxTokens ?? DEFAULT_MAX_TOKENS, window - tokens.length);
    if (!(maxTokens >= 1)) throw new EngineError('invalid_request', 'maxTokens must be at least 1');
    const params = resolveSampling(request.sampling);
    const rng = createRng(request.sampling?.seed ?? randomSeed());
    const processors = [STRUCTURAL_BAN, ...createLogitsProcessors(request.logitsProcessors)];

    const emitted: number[] = [];
    const recent = tokens.slice(-params.penaltyWindow);
    const pick = (logits: Float32Array): number => {
      for (const p of processors) p(logits, emitted.length);
      const id = this.sample(logits, params, rng, recent);
      recent.push(id);
      return id;
    };

    const stats = { promptTokens: tokens.length, reusedTokens: 0, prefilledTokens: 0, decodedTokens: 0, prefillMs: 0, decodeMs: 0 };
    const decoder = new StreamDecoder(tokenizer);
    const batcher = new TokenBatcher(decoder, onTokens);
    if (signal?.aborted) return { tokens: [], text: '', stop: 'abort', stats };

    let stop: StopReason;
    try {
      const plan = this.cache.plan(tokens);
      if (plan.reuse === 0 && this.cache.length > 0) await this.resetCache(loaded);
      stats.reusedTokens = plan.reuse;
      stats.prefilledTokens = plan.suffix.length;
      const t0 = performance.now();
      let next = await loaded.backend.step(plan.suffix, pick);
      this.cache.append(plan.suffix);
      stats.decodedTokens = 1;
      const t1 = performance.now();
      stats.prefillMs = t1 - t0;
      for (;;) {
        const kind = stopKind(next);
        if (kind) {
          stop = kind;
          break;
        }
        emitted.push(next);
        batcher.push(next);
        if (stats.decodedTokens >= maxTokens) {
          stop = 'length';
          break;
        }
        await yieldToEventLoop();
        if (signal?.aborted) {
          stop = 'abort';
          break;
        }
        const fed = next;
        next = await loaded.backend.step([fed], pick);
        this.cache.append([fed]);
        stats.decodedTokens++;
      }
      stats.decodeMs = performance.now() - t1;
    } catch (e) {
      await this.afterBackendFailure(loaded, e);
      throw e instanceof EngineError || e instanceof RangeError ? e : new EngineError('internal', `generation failed: ${errorMessage(e)}`);
    }
    batcher.flush(true);
    return { tokens: emitted, text: tokenizer.decode(emitted), stop, stats };
  }

  private async resetCache(loaded: Loaded): Promise<void> {
    this.cache.clear();
    await loaded.backend.reset();
  }

  /** The backend's cache is in an unknown state: forget it; a lost device unloads the model. */
  private async afterBackendFailure(loaded: Loaded, e: unknown): Promise<void> {
    this.cache.clear();
    if (e instanceof EngineError && e.code === 'device_lost') {
      this.loaded = null;
      await loaded.backend.dispose().catch(() => {});
      return;
    }
    await loaded.backend.reset().catch(() => {});
  }

  private async unloadNow(): Promise<void> {
    const loaded = this.loaded;
    this.loaded = null;
    this.cache.clear();
    if (loaded) await loaded.backend.dispose();
  }

  private async getTokenizer(): Promise<TextTokenizer> {
    this.tokenizer ??= await this.deps.loadTokenizer();
    return this.tokenizer;
  }

  /** Runs requests one after another: one model, one cache. */
  private serialized<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => {});
    return run;
  }
}

function validateTokens(tokens: unknown): asserts tokens is number[] {
  if (!Array.isArray(tokens) || tokens.length === 0) throw new EngineError('invalid_request', 'tokens must be a non-empty array of ids');
  for (const id of tokens) {
    if (!Number.isInteger(id) || id < 0 || id >= VOCAB_SIZE) throw new EngineError('invalid_request', `token id ${id} is outside the vocabulary`);
  }
}

function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw abortError('load aborted');
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
