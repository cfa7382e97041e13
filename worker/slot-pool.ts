/**
 * The KV caches (slots) of one logits backend, and which request runs on which. The backend itself is
 * the first slot; more are opened on the same weights when needed, up to `capacity`.
 *
 * Choice, for a request whose prompt is `tokens` (salted: another salt shares nothing):
 * 1. the free slot, sharing most, whose ids are all a prefix of the prompt (a conversation goes back
 *    to its own slot) or that holds the whole prompt (a regenerated answer rolls back only the answer);
 * 2. else an empty slot (one not opened yet counts as empty): a prompt that forks from a slot's ids —
 *    a new conversation that shares the system prompt — does not destroy another's cache while room is
 *    left (an edited last message pays one full prefill while a slot is empty);
 * 3. else the free slot, sharing most, where the prefix kept outweighs the ids rolled back;
 * 4. else the least recently used free slot is evicted (what it shares is still reused).
 * With no slot free, requests wait in arrival order.
 *
 * Invariants: a slot serves one request at a time; the backend runs one step at a time, granted in
 * the order asked (FifoLock), so generations on different slots advance in turn; each slot's
 * PrefixCache lists exactly the ids its sequence holds.
 */
import { EngineError } from '../src/engine/errors';
import type { LogitsBackend, LogitsSequence, OpenedSequence } from './backends/backend';
import { FifoLock } from './fifo-lock';
import { PrefixCache } from './prefix-cache';

/** A slot as a generation uses it: its sequence (every call through the backend's step lock) and its bookkeeping. */
export interface Slot {
  readonly index: number;
  readonly sequence: LogitsSequence & { readonly prefillChunk?: number };
  readonly cache: PrefixCache;
}

interface SlotState {
  slot: Slot;
  /** The backend's own sequence, stepped without the lock (the caller holds it). */
  raw: LogitsSequence;
  opened: OpenedSequence | null;
  busy: boolean;
  lastUsed: number;
}

interface Waiter {
  tokens: readonly number[];
  salt: string;
  grant: (state: SlotState) => void;
}

export class SlotPool {
  private readonly states: SlotState[] = [];
  private readonly waiting: Waiter[] = [];
  private readonly lock = new FifoLock();
  private opening = 0;
  private clock = 0;
  private recent: SlotState | null = null;
  private closed = false;

  constructor(
    private readonly backend: LogitsBackend,
    /** Most slots: the backend's own sequence and the ones it opens. */
    readonly capacity: number,
    /** Most bytes the slots' KV caches may hold together (counted with the backend's kvBytesPerToken); null: no bound. */
    private readonly budgetBytes: number | null = null,
  ) {
    this.states.push(this.state(backend, null));
  }

  /** Slots serving a request now. */
  get busy(): number {
    return this.states.filter((s) => s.busy).length;
  }

  /** Whether the backend was disposed (a lost device): nothing runs on it any more. */
  get disposed(): boolean {
    return this.closed;
  }

  /**
   * The slot to serve `tokens` on, reserved for the caller until `release`; waits while every slot is
   * busy. Null when `signal` aborts first.
   */
  async acquire(tokens: readonly number[], salt: string, signal?: AbortSignal): Promise<Slot | null> {
    if (signal?.aborted) return null;
    if (this.waiting.length === 0) {
      const choice = this.choose(tokens, salt);
      if (choice === 'open') return this.open();
      if (choice) return this.take(choice);
    }
    const state = await new Promise<SlotState | null>((resolve) => {
      const waiter: Waiter = { tokens, salt, grant: resolve };
      const onAbort = () => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        resolve(null);
      };
      waiter.grant = (s) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(s);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
    return state ? this.take(state) : null;
  }

  /** Gives the slot back; the longest waiting request chooses among the free slots. */
  release(slot: Slot): void {
    const state = this.states[slot.index]!;
    state.busy = false;
    state.lastUsed = ++this.clock;
    const next = this.waiting[0];
    if (!next) return;
    const choice = this.choose(next.tokens, next.salt, false);
    if (!choice || choice === 'open') return;
    this.waiting.shift();
    choice.busy = true;
    next.grant(choice);
  }

  /** The ids of the slot used last (for tests and the inspector). */
  recentIds(): number[] {
    return this.recent?.slot.cache.ids() ?? [];
  }

  /** Every slot's ids, in slot order. */
  slotIds(): number[][] {
    return this.states.map((s) => s.slot.cache.ids());
  }

  /** Frees every opened sequence and the backend, once no step runs. */
  async dispose(): Promise<void> {
    this.closed = true;
    for (const s of this.states) s.slot.cache.clear();
    await this.lock.run(async () => {
      for (const s of this.states) await s.opened?.close().catch(() => {});
      await this.backend.dispose();
    });
  }

  private choose(tokens: readonly number[], salt: string, mayOpen = true): SlotState | 'open' | null {
    const free = this.states.filter((s) => !s.busy).map((state) => {
      const { cache } = state.slot;
      return { state, keep: cache.plan(tokens, salt).keep, shared: cache.shared(tokens, salt), length: cache.length };
    });
    const nested = free.filter((f) => f.keep > 0 && (f.shared === f.length || f.shared === tokens.length));
    if (nested.length > 0) return keepsMost(nested);
    const empty = leastRecent(free.filter((f) => f.length === 0).map((f) => f.state));
    if (empty) return empty;
    if (mayOpen && this.states.length + this.opening < this.capacity && this.backend.openSequence) return 'open';
    const worth = free.filter((f) => f.keep > f.length - f.shared);
    if (worth.length > 0) return keepsMost(worth);
    return leastRecent(free.map((f) => f.state));
  }

  private take(state: SlotState): Slot {
    state.busy = true;
    state.lastUsed = ++this.clock;
    this.recent = state;
    return state.slot;
  }

  private async open(): Promise<Slot> {
    this.opening++;
    let opened: OpenedSequence;
    try {
      opened = await this.lock.run(() => this.backend.openSequence!());
    } catch (e) {
      throw new EngineError('insufficient_memory', `could not open KV cache ${this.states.length + 1} of ${this.capacity}: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.opening--;
    }
    const state = this.state(opened, opened);
    this.states.push(state);
    return this.take(state);
  }

  /** Runs `work` unless the backend was disposed under a running generation (a lost device). */
  private live<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new EngineError('device_lost', 'the GPU device was lost; load the model again'));
    return work();
  }

  /**
   * Makes room for `n` more positions in `state`'s cache under the memory bound, emptying idle slots,
   * least recently used first; throws `insufficient_memory` when the slots in use hold the rest.
   * Called holding the lock.
   */
  private async makeRoom(state: SlotState, n: number): Promise<void> {
    const perToken = this.backend.kvBytesPerToken;
    if (this.budgetBytes === null || !perToken) return;
    const held = () => this.states.reduce((sum, s) => sum + s.slot.cache.length, 0);
    const fits = () => (held() + n) * perToken <= this.budgetBytes!;
    const idle = this.states.filter((s) => s !== state && s.slot.cache.length > 0).sort((a, b) => a.lastUsed - b.lastUsed);
    for (const s of idle) {
      if (fits()) return;
      if (s.busy) continue;
      s.slot.cache.clear();
      await s.raw.reset();
    }
    if (fits()) return;
    throw new EngineError(
      'insufficient_memory',
      `KV cache ${state.slot.index + 1} cannot take ${n} more positions: the slots in use hold ${held()} positions (${mib(held() * perToken)} MiB) of the ${mib(this.budgetBytes)} MiB allowed (kvCacheBytes)`,
    );
  }

  private state(raw: LogitsSequence, opened: OpenedSequence | null): SlotState {
    const { lock } = this;
    const truncate = raw.truncate;
    const sequence: Slot['sequence'] = {
      ...(this.backend.prefillChunk !== undefined ? { prefillChunk: this.backend.prefillChunk } : {}),
      step: (ids, pick) =>
        lock.run(() =>
          this.live(async () => {
            await this.makeRoom(state, ids.length);
            return raw.step(ids, pick);
          }),
        ),
      ...(truncate ? { truncate: (n: number) => lock.run(() => this.live(() => truncate.call(raw, n))) } : {}),
      reset: () => lock.run(() => this.live(() => raw.reset())),
    };
    const state: SlotState = { slot: { index: this.states.length, sequence, cache: new PrefixCache() }, raw, opened, busy: false, lastUsed: 0 };
    return state;
  }
}

/** The candidate that keeps most of the prompt; the least recently used among equals. */
function keepsMost(candidates: ReadonlyArray<{ state: SlotState; keep: number }>): SlotState {
  let best = candidates[0]!;
  for (const c of candidates) if (c.keep > best.keep || (c.keep === best.keep && c.state.lastUsed < best.state.lastUsed)) best = c;
  return best.state;
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}

function leastRecent(states: readonly SlotState[]): SlotState | null {
  let oldest: SlotState | null = null;
  for (const s of states) if (!oldest || s.lastUsed < oldest.lastUsed) oldest = s;
  return oldest;
}
