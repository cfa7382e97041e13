/**
 * The `webllm` backend (real GPUs): web-llm's MLCEngine hosted directly in our worker, driven one
 * forward at a time with `forwardTokensAndSample`. Our sampler chooses every token inside a
 * LogitProcessor and returns logits that force that choice (finite: the GPU softmax may assume no
 * infinities). web-llm appends every forward to its KV cache and never feeds the returned token.
 * Its API has no rollback of the KV cache (only resetChat), so this backend has no `truncate`: on any
 * divergence (regenerate, an edited message) the engine resets and prefills the whole prompt.
 *
 * This code needs WebGPU and real weights: it cannot run in this project's CI (see bench/gpu).
 */
import type * as WebLlm from '@mlc-ai/web-llm';
import type { EngineConfig } from '../../src/engine/contract';
import { abortError, EngineError, type EngineErrorCode } from '../../src/engine/errors';
import type { ModelEntry, WebLlmEntry } from '../../src/engine/model-list';
import type { BackendLoadContext, LogitsBackend } from './backend';

/** The logit every token but the chosen one gets: finite, and exp() of it underflows to 0. */
const FORCED_OUT = -1e30;

/** web-llm samples with these after our processor: temperature 1, no top-p cut, no penalties. */
const NEUTRAL_SAMPLING = { temperature: 1, top_p: 1, repetition_penalty: 1, frequency_penalty: 0, presence_penalty: 0 };

/** The parts of web-llm's MLCEngine this backend drives. */
export type MlcEngineLike = Pick<WebLlm.MLCEngine, 'reload' | 'unload' | 'resetChat' | 'forwardTokensAndSample'>;

/** Where the backend gets its GPU adapter and its MLCEngine (a fake in the unit tests). */
export interface WebLlmRuntime {
  requestAdapter(): Promise<{ features: { has(feature: string): boolean } } | null>;
  createEngine(config: WebLlm.MLCEngineConfig): Promise<MlcEngineLike>;
}

const BROWSER_RUNTIME: WebLlmRuntime = {
  requestAdapter: async () => (await navigator.gpu?.requestAdapter({ powerPreference: 'high-performance' }).catch(() => null)) ?? null,
  createEngine: async (config) => new (await import('@mlc-ai/web-llm')).MLCEngine(config),
};

export async function createWebLlmBackend(ctx: BackendLoadContext, config: EngineConfig, runtime: WebLlmRuntime = BROWSER_RUNTIME): Promise<LogitsBackend> {
  const { entry, signal } = ctx;
  if (entry.backend !== 'webllm') throw new EngineError('load_failed', `model ${entry.id} is not a web-llm model`);
  await checkAdapter(entry, runtime);
  const record = await webLlmModelRecord(entry, config.modelsBaseUrl);
  const processor = new ForcingProcessor();
  const engine = await runtime.createEngine({
    appConfig: { model_list: [record], cacheBackend: 'cache' },
    logitProcessorRegistry: new Map([[entry.id, processor]]),
    initProgressCallback: (r) =>
      ctx.onProgress({ loadedBytes: Math.round(r.progress * entry.sizeBytes), totalBytes: entry.sizeBytes, text: r.text }),
  });
  const onAbort = () => void engine.unload();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await engine.reload(entry.id, { ...NEUTRAL_SAMPLING, context_window_size: entry.contextWindow });
  } catch (e) {
    throw mapWebLlmError(e, 'load_failed');
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (signal.aborted) throw abortError('load aborted');
  return new WebLlmBackend(engine, processor);
}

/** Our choice rides through web-llm's sampler: pick with our sampler, return logits that force it. */
export class ForcingProcessor implements WebLlm.LogitProcessor {
  pick: ((logits: Float32Array) => number) | null = null;
  chosen = -1;

  processLogits(logits: Float32Array): Float32Array {
    if (!this.pick) throw new Error('forward without a pick function');
    this.chosen = this.pick(logits.slice());
    logits.fill(FORCED_OUT);
    logits[this.chosen] = 0;
    return logits;
  }

  processSampledToken(): void {}

  resetState(): void {}
}

export class WebLlmBackend implements LogitsBackend {
  readonly kind = 'logits';
  readonly device = 'webgpu';

  constructor(
    private readonly engine: MlcEngineLike,
    private readonly processor: ForcingProcessor,
  ) {}

  async step(ids: readonly number[], pick: (logits: Float32Array) => number): Promise<number> {
    this.processor.pick = pick;
    let token: number;
    try {
      token = await this.engine.forwardTokensAndSample([...ids], ids.length > 1);
    } catch (e) {
      throw mapWebLlmError(e, 'internal');
    } finally {
      this.processor.pick = null;
    }
    if (token !== this.processor.chosen) {
      throw new EngineError('internal', `web-llm sampled ${token} where ${this.processor.chosen} was forced`);
    }
    return token;
  }

  async reset(): Promise<void> {
    await this.engine.resetChat();
  }

  async dispose(): Promise<void> {
    await this.engine.unload();
  }
}

/** The model record for web-llm: local weights under models/ when present (offline demo), else the public URLs. */
export async function webLlmModelRecord(entry: WebLlmEntry, modelsBaseUrl: string): Promise<WebLlm.ModelRecord> {
  const local = `${modelsBaseUrl}${entry.id}/resolve/main/`;
  const libFile = entry.modelLib.slice(entry.modelLib.lastIndexOf('/') + 1);
  // A dev server answers unknown paths with its HTML page: only a non-HTML 200 means the file is there.
  const hasLocal = await fetch(`${local}mlc-chat-config.json`, { method: 'HEAD' }).then(
    (r) => r.ok && !(r.headers.get('content-type') ?? '').includes('text/html'),
    () => false,
  );
  return {
    model: hasLocal ? local : entry.modelUrl,
    model_id: entry.id,
    model_lib: hasLocal ? `${modelsBaseUrl}${entry.id}/${libFile}` : entry.modelLib,
    required_features: entry.requiredFeatures,
    overrides: { context_window_size: entry.contextWindow },
  };
}

async function checkAdapter(entry: ModelEntry, runtime: WebLlmRuntime): Promise<void> {
  const adapter = await runtime.requestAdapter();
  if (!adapter) throw new EngineError('webgpu_unavailable', 'WebGPU is not available here: web-llm models need a GPU browser with WebGPU');
  if (entry.requiredFeatures.includes('shader-f16') && !adapter.features.has('shader-f16')) {
    throw new EngineError('shader_f16_unsupported', `${entry.label} needs shader-f16, which this GPU lacks: choose the q4f32 variant`);
  }
}

/** web-llm's error classes (matched by name: only one is exported) → our codes. */
export function mapWebLlmError(e: unknown, fallback: EngineErrorCode): Error {
  if (e instanceof EngineError || (e as { name?: string })?.name === 'AbortError') return e as Error;
  const name = (e as { name?: string })?.name ?? '';
  const message = e instanceof Error ? e.message : String(e);
  const code: EngineErrorCode =
    name === 'DeviceLostError' || name === 'ModelNotLoadedError'
      ? 'device_lost'
      : name === 'WebGPUNotAvailableError'
        ? 'webgpu_unavailable'
        : name === 'ShaderF16SupportError' || name === 'FeatureSupportError'
          ? 'shader_f16_unsupported'
          : /out of memory|exceeds limit|allocation/i.test(message)
            ? 'insufficient_memory'
            : fallback;
  return new EngineError(code, code === 'device_lost' ? `the GPU device was lost (${message}); load the model again` : message);
}
