/**
 * The `llamacpp` LogitsBackend (Node only): a GGUF on disk run by node-llama-cpp's prebuilt CPU
 * binary; our sampler picks every token. One context with `sequences` context sequences, each its own
 * KV cache of `contextSize` positions: the backend is the first, `openSequence` hands out the others.
 * node-llama-cpp hands logits over as a Map, one entry at a time (~60 ms for 128k on a laptop core,
 * 20× the micro model's decode step), so a pick that can decide from the largest logits
 * (worker/sampler.ts `TopSampler`) gets those alone, and the whole vector only when they cannot decide
 * or something needs it (a grammar's mask, log probabilities, penalties).
 * node-llama-cpp is loaded with `build: 'never'` and no GPU, so first use never downloads or compiles.
 *
 * Invariant: the sequence holds exactly the ids fed since the last reset minus what truncate dropped
 * (node-llama-cpp tracks them as `contextTokens`); a step never shifts the context (a prompt that
 * does not fit is a context_overflow error before anything is evaluated).
 */
import { availableParallelism } from 'node:os';
import type { Llama, LlamaContext, LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import { EngineError, abortError } from '../../src/engine/errors';
import type { TopLogits } from '../sampler';
import type { LogitsBackend, Pick } from './backend';
import { importNodeLlamaCpp } from './node-llama-cpp-import';

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
  llamaPromise ??= importNodeLlamaCpp().then(({ getLlama, LlamaLogLevel }) =>
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
    if (e instanceof EngineError) throw e;
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

  /** Ids the model scores (from the GGUF's metadata; 0 when it does not say: every step then hands over the whole vector). */
  private readonly vocabularySize: number;

  constructor(
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    private readonly sequence: LlamaContextSequence,
  ) {
    const metadata = model.fileInfo.metadata as { llama?: { vocab_size?: number }; tokenizer?: { ggml?: { tokens?: readonly unknown[] } } };
    this.vocabularySize = metadata.llama?.vocab_size ?? metadata.tokenizer?.ggml?.tokens?.length ?? 0;
  }

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

  async step(ids: readonly number[], pick: Pick): Promise<number> {
    if (ids.length === 0) throw new EngineError('internal', 'step needs at least one id');
    const free = this.sequence.contextSize - this.sequence.nextTokenIndex;
    if (ids.length > free) {
      throw new EngineError('context_overflow', `${ids.length} more tokens do not fit: the context holds ${this.sequence.contextSize} and ${this.sequence.nextTokenIndex} are used`);
    }
    if (!pick.fromTop || this.vocabularySize <= TOP_LOGITS[TOP_LOGITS.length - 1]!) return pick(fullLogits(await this.evaluate(ids, { logits: true })));
    let fed = ids;
    for (const k of TOP_LOGITS) {
      const id = pick.fromTop(topLogits(await this.evaluate(fed, topRequest(k)), this.vocabularySize));
      if (id !== null) return id;
      // The largest logits could not decide: the last id again, for more of them.
      fed = [ids[ids.length - 1]!];
      await this.dropLast();
    }
    return pick(fullLogits(await this.evaluate(fed, { logits: true })));
  }

  /** Forgets the last position fed. */
  private async dropLast(): Promise<void> {
    if (this.sequence.nextTokenIndex > 1) await this.truncate(this.sequence.nextTokenIndex - 1);
    else await this.reset();
  }

  /** Feeds `ids` and returns the logits after the last one, as `generateNext` asks for them. */
  private async evaluate(ids: readonly number[], generateNext: GenerateNext): Promise<Map<Token, number>> {
    const input = ids.map((id, i) => (i === ids.length - 1 ? ([id as Token, { generateNext }] as const) : (id as Token)));
    const out = await this.sequence.controlledEvaluate(input as never, { contextShift: { size: 0, strategy: noShift } });
    const next = out[ids.length - 1]?.next.logits;
    if (!next) throw new EngineError('internal', 'node-llama-cpp returned no logits for the last id');
    return next;
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

/**
 * How many of the largest logits a step hands over when the pick may decide from them: a few hundred
 * decide most steps of a language model; a flatter step is evaluated again for more, then for all.
 */
const TOP_LOGITS = [256, 8192] as const;

type GenerateNext = { logits: true } | ReturnType<typeof topRequest>;

/**
 * The `k` largest logits, unchanged: node-llama-cpp's sampler chain cut to top-k alone (its top-p and
 * min-p defaults off; temperature 1 leaves the values as they are), whose result list is then those
 * logits. Its own draw from them is ignored.
 */
function topRequest(k: number) {
  return { logits: { filter: { includeTop: k } }, options: { temperature: 1, topK: k, topP: 1, minP: 0 } } as const;
}

function topLogits(next: Map<Token, number>, vocabularySize: number): TopLogits {
  const ids: number[] = [];
  const logits: number[] = [];
  let outsideMax = Infinity;
  for (const [token, value] of next) {
    ids.push(token);
    logits.push(value);
    outsideMax = Math.min(outsideMax, value);
  }
  // The smallest listed logit bounds every unlisted one (the list holds the largest).
  return { ids, logits, outsideMax, outside: vocabularySize - ids.length };
}

/** The whole vector: every id of the vocabulary has an entry (no sampler option filters them). */
function fullLogits(next: Map<Token, number>): Float32Array {
  const logits = new Float32Array(next.size);
  for (const [token, value] of next) {
    if (!(token < next.size)) throw new EngineError('internal', `node-llama-cpp returned a logit for id ${token} of a ${next.size}-entry list`);
    logits[token] = value;
  }
  return logits;
}

/** A context shift would silently drop the start of the conversation: refuse it (step checks first). */
function noShift(): never {
  throw new EngineError('context_overflow', 'the conversation no longer fits the context');
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
