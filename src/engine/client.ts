/**
 * The main thread's handle on the engine worker: a typed wrapper over comlink that carries
 * AbortSignals (as transferred ports), streams tokens (a proxied callback, or an AsyncIterable)
 * and rethrows the worker's errors as EngineError / AbortError.
 *
 * Invariant: no call waits forever on a worker that never started. An `error` event before the
 * worker has answered anything means its script did not load (a refused CSP, a missing file, a
 * network error): every pending and later call rejects with EngineError('worker_failed').
 */
import { proxy, releaseProxy, transfer, wrap, type Remote } from 'comlink';
import { portForSignal } from './abort-port';
import { callbackStream } from './callback-stream';
import type {
  EngineApi, EngineConfig, EngineLike, GenerateRequest, GenerateResult, GpuCapabilities, LoadedModelInfo, LoadOptions, LoadProgress, TokenBatch,
} from './contract';
import { installErrorTransfer } from './error-transfer';
import { EngineError } from './errors';
import type { Segment } from '../format/types';

export class EngineClient implements EngineLike {
  private readonly api: Remote<EngineApi>;
  private info: LoadedModelInfo | null = null;
  /** The worker has answered a call (so it started). */
  private answered = false;
  /** Rejects once the worker failed to start; never resolves. */
  private readonly startFailure: Promise<never>;

  constructor(private readonly worker: Worker) {
    installErrorTransfer();
    this.api = wrap<EngineApi>(worker);
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
  private call<T>(request: () => Promise<T>): Promise<T> {
    const settled = (): void => {
      this.answered = true;
    };
    const answer = request();
    answer.then(settled, settled);
    return Promise.race([answer, this.startFailure]);
  }

  /** The loaded model, as of the last load(). */
  get model(): LoadedModelInfo | null {
    return this.info;
  }

  configure(config: EngineConfig): Promise<void> {
    return this.call(() => this.api.configure(config));
  }

  capabilities(): Promise<GpuCapabilities> {
    return this.call(() => this.api.capabilities());
  }

  async load(modelId: string, options: LoadOptions & { onProgress?: (p: LoadProgress) => void; signal?: AbortSignal } = {}): Promise<LoadedModelInfo> {
    const { onProgress, signal, ...loadOptions } = options;
    const port = portForSignal(signal);
    this.info = null;
    this.info = await this.call(() => this.api.load(modelId, loadOptions, onProgress ? proxy(onProgress) : undefined, port ? transfer(port, [port]) : undefined));
    return this.info;
  }

  async unload(): Promise<void> {
    this.info = null;
    await this.call(() => this.api.unload());
  }

  generate(request: GenerateRequest, onTokens?: (batch: TokenBatch) => void, signal?: AbortSignal): Promise<GenerateResult> {
    const port = portForSignal(signal);
    return this.call(() => this.api.generate(request, onTokens ? proxy(onTokens) : undefined, port ? transfer(port, [port]) : undefined));
  }

  /** generate() as an AsyncIterable of token batches plus the final result. */
  stream(request: GenerateRequest, signal?: AbortSignal): { batches: AsyncIterable<TokenBatch>; result: Promise<GenerateResult> } {
    const s = callbackStream<TokenBatch>();
    const result = this.generate(request, s.push, signal);
    result.then(s.end, s.fail);
    return { batches: s.iterable, result };
  }

  tokenize(text: string): Promise<number[]> {
    return this.call(() => this.api.tokenize(text));
  }

  countTokens(text: string): Promise<number> {
    return this.call(() => this.api.countTokens(text));
  }

  decode(tokens: number[]): Promise<string> {
    return this.call(() => this.api.decode(tokens));
  }

  encodeSegments(segments: Segment[]): Promise<number[]> {
    return this.call(() => this.api.encodeSegments(segments));
  }

  loseDevice(): Promise<void> {
    return this.call(() => this.api.loseDevice());
  }

  terminate(): void {
    this.api[releaseProxy]();
    this.worker.terminate();
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
