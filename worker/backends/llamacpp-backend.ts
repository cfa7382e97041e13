/**
 * The `llamacpp` LogitsBackend (Node only): a GGUF on disk run by node-llama-cpp's prebuilt CPU
 * binary, the full next-token logits handed to our sampler at every step. One context with `sequences`
 * context sequences, each its own KV cache of `contextSize` positions: the backend is the first,
 * `openSequence` hands out the others.
 * node-llama-cpp is loaded with `build: 'never'` and no GPU, so first use never downloads or compiles.
 *
 * Invariant: the sequence holds exactly the ids fed since the last reset minus what truncate dropped
 * (node-llama-cpp tracks them as `contextTokens`); a step never shifts the context (a prompt that
 * does not fit is a context_overflow error before anything is evaluated).
 */
import { availableParallelism } from 'node:os';
import type { Llama, LlamaContext, LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import { EngineError, abortError } from '../../src/engine/errors';
import type { LogitsBackend } from './backend';

export interface LlamaCppOptions {
  /** A GGUF file on disk (any Llama 3.1 GGUF: F32, F16, Q4_K_M, ...). */
  modelPath: string;
  /** KV cache size in tokens (default 8192); never more than the model's trained context. */
  contextSize?: number;
  /**
   * Compute attention in float32: an F32 KV cache and no flash attention. Default false: llama.cpp's
   * defaults, an F16 cache and (on CPU) flash attention, which rounds through F16 — on the micro model
   * that moves logits by up to ~1e-2, against ~1e-5 in float32 (the equality checks with ONNX use this).
   */
  float32Attention?: boolean;
  /** CPU threads (default: every core; node-llama-cpp's own default is far slower on 2 cores). */
  threads?: number;
  /** Context sequences, each a KV cache of `contextSize` positions allocated at load (default 1). */
  sequences?: number;
  signal?: AbortSignal;
}

/** A KV cache of 8,192 positions: an 8B model's costs 1 GiB in F16, fine on a laptop. */
export const DEFAULT_CONTEXT = 8192;

let llamaPromise: Promise<Llama> | null = null;

/** One node-llama-cpp runtime per process (it owns the native backend), CPU only, never built here. */
function runtime(): Promise<Llama> {
  llamaPromise ??= import('node-llama-cpp').then(({ getLlama, LlamaLogLevel }) =>
    getLlama({ gpu: false, build: 'never', usePrebuiltBinaries: true, progressLogs: false, logLevel: LlamaLogLevel.error }),
  );
  llamaPromise.catch(() => {
    llamaPromise = null;
  });
  return llamaPromise;
}

/** Which node-llama-cpp binary runs: "prebuilt" (shipped in the npm package) and the GPU it uses (false: CPU). */
export async function llamaCppRuntime(): Promise<{ buildType: 'localBuild' | 'prebuilt'; gpu: string | false }> {
  const llama = await runtime();
  return { buildType: llama.buildType, gpu: llama.gpu };
}

export async function createLlamaCppBackend(options: LlamaCppOptions): Promise<LogitsBackend> {
  if (options.signal?.aborted) throw abortError('load aborted');
  let llama: Llama;
  try {
    llama = await runtime();
  } catch (e) {
    throw new EngineError('load_failed', `node-llama-cpp could not start its prebuilt CPU binary: ${message(e)}`);
  }
  let model: LlamaModel;
  try {
    model = await llama.loadModel({ modelPath: options.modelPath, gpuLayers: 0, ...(options.signal ? { loadSignal: options.signal } : {}) });
  } catch (e) {
    if (options.signal?.aborted) throw abortError('load aborted');
    throw new EngineError('load_failed', `could not load the GGUF ${options.modelPath}: ${message(e)}`);
  }
  try {
    const contextSize = Math.min(options.contextSize ?? DEFAULT_CONTEXT, model.trainContextSize);
    const context = await model.createContext({
      contextSize,
      sequences: options.sequences ?? 1,
      threads: options.threads ?? availableParallelism(),
      ...(options.float32Attention ? { flashAttention: false, experimentalKvCacheKeyType: 'F32', experimentalKvCacheValueType: 'F32' } : {}),
    });
    return new LlamaCppBackend(model, context, context.getSequence());
  } catch (e) {
    await model.dispose();
    throw new EngineError('insufficient_memory', `could not create ${options.sequences ?? 1} ${options.contextSize ?? 'default'}-token context sequence(s) for ${options.modelPath}: ${message(e)}`);
  }
}

class LlamaCppBackend implements LogitsBackend {
  readonly kind = 'logits' as const;
  readonly device = 'cpu';

  constructor(
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    private readonly sequence: LlamaContextSequence,
  ) {}

  get contextWindow(): number {
    return this.sequence.contextSize;
  }

  get maxSequences(): number {
    return this.context.totalSequences;
  }

  /** The context's next free sequence; closing it frees the sequence, not the context. */
  async openSequence(): Promise<LlamaCppBackend> {
    return new LlamaCppBackend(this.model, this.context, this.context.getSequence());
  }

  async close(): Promise<void> {
    this.sequence.dispose();
  }

  /** Ids held by the KV cache. */
  get length(): number {
    return this.sequence.nextTokenIndex;
  }

  async step(ids: readonly number[], pick: (logits: Float32Array) => number): Promise<number> {
    if (ids.length === 0) throw new EngineError('internal', 'step needs at least one id');
    const free = this.sequence.contextSize - this.sequence.nextTokenIndex;
    if (ids.length > free) {
      throw new EngineError('context_overflow', `${ids.length} more tokens do not fit: the context holds ${this.sequence.contextSize} and ${this.sequence.nextTokenIndex} are used`);
    }
    const input = ids.map((id, i) =>
      i === ids.length - 1 ? ([id as Token, { generateNext: { logits: true } }] as const) : (id as Token),
    );
    const out = await this.sequence.controlledEvaluate(input as never, { contextShift: { size: 0, strategy: noShift } });
    const next = out[ids.length - 1]?.next.logits;
    if (!next) throw new EngineError('internal', 'node-llama-cpp returned no logits for the last id');
    // Every id of the vocabulary has an entry (no sampler option filters them), so ids < size.
    const logits = new Float32Array(next.size);
    for (const [token, value] of next) {
      if (!(token < next.size)) throw new EngineError('internal', `node-llama-cpp returned a logit for id ${token} of a ${next.size}-entry list`);
      logits[token] = value;
    }
    return pick(logits);
  }

  async truncate(n: number): Promise<void> {
    const length = this.sequence.nextTokenIndex;
    if (!(Number.isInteger(n) && n > 0 && n < length)) throw new EngineError('internal', `truncate(${n}) needs 0 < n < ${length}`);
    await this.sequence.eraseContextTokenRanges([{ start: n, end: length }]);
    if (this.sequence.nextTokenIndex !== n) throw new EngineError('internal', `node-llama-cpp kept ${this.sequence.nextTokenIndex} positions, not ${n}`);
  }

  async reset(): Promise<void> {
    await this.sequence.clearHistory();
  }

  async dispose(): Promise<void> {
    await this.context.dispose().catch(() => {});
    await this.model.dispose();
  }
}

/** A context shift would silently drop the start of the conversation: refuse it (step checks first). */
function noShift(): never {
  throw new EngineError('context_overflow', 'the conversation no longer fits the context');
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
