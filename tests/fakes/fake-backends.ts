/**
 * In-memory fakes of both backend kinds over one fake "model": the logits after a sequence depend on
 * every id in it (a rolling hash), so a cache that holds the wrong ids gives the wrong next token —
 * the property the conformance suite needs to catch cache bugs without a real model. Browser-safe.
 */
import { abortError, EngineError } from '../../src/engine/errors';
import { VOCAB_SIZE } from '../../src/format/special-tokens';
import type { LogitsBackend, OpenedSequence, Pick, SamplingBackend, SamplingOutcome, SamplingRequest } from '../../worker/backends/backend';
import { createRng } from '../../worker/rng';
import { createSampler, type TopLogits } from '../../worker/sampler';

/** Ordinary ids the fake model favours (well inside the text vocabulary). */
const FAVOURED_SPAN = 5000;
const FAVOURED_FROM = 1000;

/** The fake model: logits after `ids` (every id matters). */
export function fakeLogits(ids: readonly number[]): Float32Array {
  let h = 2166136261;
  for (const id of ids) h = Math.imul(h ^ id, 16777619) >>> 0;
  const logits = new Float32Array(VOCAB_SIZE).fill(-8);
  for (let k = 0; k < 6; k++) {
    h = Math.imul(h ^ (h >>> 13), 0x5bd1e995) >>> 0;
    logits[FAVOURED_FROM + (h % FAVOURED_SPAN)] = 6 - k;
  }
  return logits;
}

/** The `k` largest logits, in id order, and the largest of the rest. */
function largest(logits: Float32Array, k: number): TopLogits {
  const order = Array.from(logits.keys()).sort((a, b) => logits[b]! - logits[a]! || a - b);
  const ids = order.slice(0, k).sort((a, b) => a - b);
  return { ids, logits: ids.map((i) => logits[i]!), outsideMax: logits[order[k]!]!, outside: logits.length - k };
}

/** Switches a fake (or a wrapped real backend) to fail its next call, as a runtime crash would. */
export interface FailureSwitch {
  failNext(error?: Error): void;
}

export interface FakeLogitsOptions {
  /** Whether it can roll its cache back (web-llm cannot: the engine must reset instead). */
  truncate?: boolean;
  /** Hands a pick that can decide from them only this many of the largest logits first (as the llamacpp backend does). */
  topLogits?: number;
  /** Sequences it holds, itself included (default 1: no openSequence). */
  sequences?: number;
  /** What it says a cached position costs (default: it does not say). */
  kvBytesPerToken?: number;
}

/** A LogitsBackend over the fake model; `cached` is its KV cache. */
export class FakeLogitsBackend implements LogitsBackend, FailureSwitch {
  readonly kind = 'logits';
  readonly device = 'fake';
  readonly cached: number[] = [];
  readonly calls: Array<{ op: 'step' | 'truncate' | 'reset' | 'top'; n: number }> = [];
  private readonly topLogits: number;
  private failure: Error | null = null;
  readonly truncate?: (n: number) => Promise<void>;
  readonly maxSequences?: number;
  readonly kvBytesPerToken?: number;
  readonly openSequence?: () => Promise<OpenedSequence>;
  /** The sequences it opened, in order; a closed one is marked. */
  readonly opened: Array<FakeLogitsBackend & { closed: boolean }> = [];

  constructor(options: FakeLogitsOptions = {}) {
    this.topLogits = options.topLogits ?? 0;
    const sequences = options.sequences ?? 1;
    if (options.kvBytesPerToken !== undefined) this.kvBytesPerToken = options.kvBytesPerToken;
    if (sequences > 1) {
      this.maxSequences = sequences;
      this.openSequence = async () => {
        if (this.opened.length + 1 >= sequences) throw new Error(`the fake holds ${sequences} sequences`);
        const sequence = Object.assign(new FakeLogitsBackend({ ...options, sequences: 1 }), { closed: false });
        this.opened.push(sequence);
        return Object.assign(sequence, {
          close: async () => {
            sequence.closed = true;
            sequence.cached.length = 0;
          },
        });
      };
    }
    if (options.truncate !== false) {
      this.truncate = async (n: number) => {
        this.calls.push({ op: 'truncate', n });
        this.throwIfFailing();
        this.cached.length = n;
      };
    }
  }

  failNext(error: Error = new Error('the fake runtime crashed')): void {
    this.failure = error;
  }

  async step(ids: readonly number[], pick: Pick): Promise<number> {
    this.calls.push({ op: 'step', n: ids.length });
    this.throwIfFailing();
    if (ids.length === 0) throw new Error('step needs at least one id');
    this.cached.push(...ids);
    const logits = fakeLogits(this.cached);
    if (this.topLogits > 0 && pick.fromTop) {
      const id = pick.fromTop(largest(logits, this.topLogits));
      this.calls.push({ op: 'top', n: id === null ? 0 : 1 });
      if (id !== null) return id;
    }
    return pick(logits);
  }

  async reset(): Promise<void> {
    this.calls.push({ op: 'reset', n: 0 });
    this.cached.length = 0;
  }

  async dispose(): Promise<void> {
    this.cached.length = 0;
  }

  private throwIfFailing(): void {
    const failure = this.failure;
    this.failure = null;
    if (failure) {
      this.cached.length = 0;
      this.cached.push(-1); // the runtime's cache is now garbage: only a reset repairs it
      throw failure;
    }
  }
}

/**
 * A SamplingBackend over the fake model that samples on "its side" with our sampler (seeded),
 * keeps its own cache of the last prompt and output, and reports the common prefix it reused.
 */
export class FakeSamplingBackend implements SamplingBackend, FailureSwitch {
  readonly kind = 'sampling';
  readonly device = 'fake-server';
  readonly requests: SamplingRequest[] = [];
  private cache: number[] = [];
  private failure: Error | null = null;
  private readonly sample = createSampler(VOCAB_SIZE);

  failNext(error: Error = new EngineError('server_error', 'the fake server answered 500')): void {
    this.failure = error;
  }

  async generate(request: SamplingRequest, onIds: (ids: number[]) => void, signal: AbortSignal): Promise<SamplingOutcome> {
    this.requests.push(request);
    const failure = this.failure;
    this.failure = null;
    if (failure) {
      this.cache = [];
      throw failure;
    }
    let reused = 0;
    while (reused < Math.min(this.cache.length, request.prompt.length - 1) && this.cache[reused] === request.prompt[reused]) reused++;
    const sequence = [...request.prompt];
    const rng = createRng(request.seed);
    const stops = new Set(request.stopIds);
    for (let n = 0; n < request.maxTokens; n++) {
      await new Promise((resolve) => setTimeout(resolve, 0)); // a network's pace: aborts can land between ids
      if (signal.aborted) {
        this.cache = sequence.slice(0, -1); // like a server's slot: it keeps what it computed
        throw abortError('the request was aborted');
      }
      const id = this.sample(fakeLogits(sequence), request.sampling, rng, sequence.slice(-request.sampling.penaltyWindow));
      sequence.push(id);
      onIds([id]);
      if (stops.has(id)) break;
    }
    this.cache = sequence.slice(0, -1);
    return { reusedTokens: reused };
  }

  async dispose(): Promise<void> {
    this.cache = [];
  }
}
