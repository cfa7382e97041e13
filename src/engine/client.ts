/**
 * The main thread's handle on the engine worker: a typed wrapper over comlink that carries
 * AbortSignals (as transferred ports), streams id batches (a proxied callback) and rethrows the
 * worker's errors as EngineError / AbortError. It also holds the page's tokenizer, loaded beside the
 * first model: text is rendered, counted and decoded here, never in the worker.
 *
 * Invariant: no call waits forever on a worker that never started. An `error` event before the
 * worker has answered anything means its script did not load (a refused CSP, a missing file, a
 * network error): every pending and later call rejects with EngineError('worker_failed').
 */
import { proxy, releaseProxy, transfer, wrap, type Remote } from 'comlink';
import { fetchTokenizer, tokenizerUrl } from '../format/tokenizer/fetch-tokenizer';
import type { TextTokenizer } from '../format/types';
import { portForSignal } from './abort-port';
import type { EngineApi, EngineConfig, EngineLike, GenerateRequest, GenerateResult, GpuCapabilities, LoadedModelInfo, LoadOptions, LoadProgress, ModelRef } from './contract';
import { installErrorTransfer } from './error-transfer';
import { EngineError } from './errors';

export interface EngineClientOptions {
  /** How the page gets its tokenizer (default: fetched from the configured models folder). */
  loadTokenizer?: (config: EngineConfig | null) => Promise<TextTokenizer>;
}

export class EngineClient<Api extends EngineApi = EngineApi> implements EngineLike {
  protected readonly api: Remote<Api>;
  private info: LoadedModelInfo | null = null;
  private config: EngineConfig | null = null;
  private pageTokenizer: TextTokenizer | null = null;
  /** The worker has answered a call (so it started). */
  private answered = false;
  /** Rejects once the worker failed to start; never resolves. */
  private readonly startFailure: Promise<never>;

  constructor(
    private readonly worker: Worker,
    private readonly options: EngineClientOptions = {},
  ) {
    installErrorTransfer();
    this.api = wrap<Api>(worker);
    this.startFailure = new Promise<never>((_, reject) => {
      worker.addEventListener('error', (event: Event) => {
        if (this.answered) return;
        event.preventDefault();
        worker.terminate();
        reject(startError(event));
      });
    });
    this.startFailure.catch(() => {}); // surfaced through the calls, not as an unhandled rejection
  }

  /** Starts the engine worker shipped with the app. */
  static start(config: EngineConfig): EngineClient {
    const worker = new Worker(new URL('../../worker/engine.worker.ts', import.meta.url), { type: 'module', name: 'llama-engine' });
    const client = new EngineClient(worker);
    client.configure(config).catch(() => {}); // a failed start surfaces on the next call
    return client;
  }

  /** A call to the worker that also ends if the worker fails to start. */
  protected call<T>(request: () => Promise<T>): Promise<T> {
    const settled = (): void => {
      this.answered = true;
    };
    const answer = request();
    answer.then(settled, settled);
    return Promise.race([answer, this.startFailure]);
  }

  /** The loaded model: the last load()'s, or after a failed load the one that kept running (null when none). */
  get model(): LoadedModelInfo | null {
    return this.info;
  }

  /** The page's tokenizer, once a load() has succeeded (null before). */
  get tokenizer(): TextTokenizer | null {
    return this.pageTokenizer;
  }

  configure(config: EngineConfig): Promise<void> {
    this.config = config;
    return this.call(() => this.api.configure(config));
  }

  capabilities(): Promise<GpuCapabilities> {
    return this.call(() => this.api.capabilities());
  }

  /** Loads a model in the worker (a models.json id, or a server the user named) and, beside it, the page's tokenizer (once). */
  async load(model: ModelRef, options: LoadOptions & { onProgress?: (p: LoadProgress) => void; signal?: AbortSignal } = {}): Promise<LoadedModelInfo> {
    const { onProgress, signal, ...loadOptions } = options;
    const port = portForSignal(signal);
    const tokenizer = this.pageTokenizer ? Promise.resolve(this.pageTokenizer) : this.fetchPageTokenizer();
    tokenizer.catch(() => {}); // reported through the load below
    let info: LoadedModelInfo;
    try {
      info = await this.call(() => this.api.load(model, loadOptions, onProgress ? proxy(onProgress) : undefined, port ? transfer(port, [port]) : undefined));
    } catch (e) {
      // The worker keeps the model that was running unless the load had to unload it: ask which.
      this.info = await this.call(() => this.api.loaded()).catch(() => null);
      throw e;
    }
    try {
      this.pageTokenizer = await tokenizer;
    } catch (e) {
      this.info = null;
      throw new EngineError('load_failed', `the model loaded but the tokenizer did not: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.info = info;
    return info;
  }

  async unload(): Promise<void> {
    this.info = null;
    await this.call(() => this.api.unload());
  }

  generate(request: GenerateRequest, onIds?: (ids: number[]) => void, signal?: AbortSignal): Promise<GenerateResult> {
    const port = portForSignal(signal);
    return this.call(() => this.api.generate(request, onIds ? proxy(onIds) : undefined, port ? transfer(port, [port]) : undefined));
  }

  terminate(): void {
    this.api[releaseProxy]();
    this.worker.terminate();
  }

  private async fetchPageTokenizer(): Promise<TextTokenizer> {
    if (this.options.loadTokenizer) return this.options.loadTokenizer(this.config);
    const base = this.config?.modelsBaseUrl ?? new URL('/models/', location.href).href;
    return fetchTokenizer(tokenizerUrl(base));
  }
}

function startError(event: Event): EngineError {
  const message = (event as { message?: unknown }).message; // an ErrorEvent's; a failed module load has none
  const detail = typeof message === 'string' && message !== '' ? message : 'the browser gave no details';
  return new EngineError(
    'worker_failed',
    `The engine worker could not start: its script did not load (${detail}). ` +
      "If the page has a Content-Security-Policy, it must allow the engine's worker and scripts (README: Embedding under a Content-Security-Policy).",
  );
}
