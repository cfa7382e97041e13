/**
 * The main thread's handle on the engine worker: a typed wrapper over comlink that carries
 * AbortSignals (as transferred ports), streams tokens (a proxied callback, or an AsyncIterable)
 * and rethrows the worker's errors as EngineError / AbortError.
 */
import { proxy, releaseProxy, transfer, wrap, type Remote } from 'comlink';
import { portForSignal } from './abort-port';
import { callbackStream } from './callback-stream';
import type {
  EngineApi, EngineConfig, EngineLike, GenerateRequest, GenerateResult, GpuCapabilities, LoadedModelInfo, LoadOptions, LoadProgress, TokenBatch,
} from './contract';
import { installErrorTransfer } from './error-transfer';
import type { Segment } from '../format/types';

export class EngineClient implements EngineLike {
  private readonly api: Remote<EngineApi>;
  private info: LoadedModelInfo | null = null;

  constructor(private readonly worker: Worker) {
    installErrorTransfer();
    this.api = wrap<EngineApi>(worker);
  }

  /** Starts the engine worker shipped with the app. */
  static start(config: EngineConfig): EngineClient {
    const worker = new Worker(new URL('../../worker/engine.worker.ts', import.meta.url), { type: 'module', name: 'llama-engine' });
    const client = new EngineClient(worker);
    void client.api.configure(config);
    return client;
  }

  /** The loaded model, as of the last load(). */
  get model(): LoadedModelInfo | null {
    return this.info;
  }

  configure(config: EngineConfig): Promise<void> {
    return this.api.configure(config);
  }

  capabilities(): Promise<GpuCapabilities> {
    return this.api.capabilities();
  }

  async load(modelId: string, options: LoadOptions & { onProgress?: (p: LoadProgress) => void; signal?: AbortSignal } = {}): Promise<LoadedModelInfo> {
    const { onProgress, signal, ...loadOptions } = options;
    const port = portForSignal(signal);
    this.info = null;
    this.info = await this.api.load(modelId, loadOptions, onProgress ? proxy(onProgress) : undefined, port ? transfer(port, [port]) : undefined);
    return this.info;
  }

  async unload(): Promise<void> {
    this.info = null;
    await this.api.unload();
  }

  generate(request: GenerateRequest, onTokens?: (batch: TokenBatch) => void, signal?: AbortSignal): Promise<GenerateResult> {
    const port = portForSignal(signal);
    return this.api.generate(request, onTokens ? proxy(onTokens) : undefined, port ? transfer(port, [port]) : undefined);
  }

  /** generate() as an AsyncIterable of token batches plus the final result. */
  stream(request: GenerateRequest, signal?: AbortSignal): { batches: AsyncIterable<TokenBatch>; result: Promise<GenerateResult> } {
    const s = callbackStream<TokenBatch>();
    const result = this.generate(request, s.push, signal);
    result.then(s.end, s.fail);
    return { batches: s.iterable, result };
  }

  tokenize(text: string): Promise<number[]> {
    return this.api.tokenize(text);
  }

  countTokens(text: string): Promise<number> {
    return this.api.countTokens(text);
  }

  decode(tokens: number[]): Promise<string> {
    return this.api.decode(tokens);
  }

  encodeSegments(segments: Segment[]): Promise<number[]> {
    return this.api.encodeSegments(segments);
  }

  loseDevice(): Promise<void> {
    return this.api.loseDevice();
  }

  terminate(): void {
    this.api[releaseProxy]();
    this.worker.terminate();
  }
}
