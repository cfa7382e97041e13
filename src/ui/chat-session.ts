/**
 * One conversation with the loaded model, no DOM: send, stop, regenerate, start over. The
 * transcript is what the last run's `finish` returned (raw emitted text and ids kept), never
 * rebuilt, so every turn's prompt extends the previous one and the engine reuses its KV cache.
 *
 * Invariants: at most one run at a time; every run ends with exactly one `turn-end`; a run that
 * ends in an error leaves the transcript as it was before the user's message (nothing half-valid
 * is kept); a stopped run keeps what was said; the kept transcript always renders again (the engine
 * never samples a structural special token, so emitted ids always replay); "always allow" is per
 * tool name and lasts until it is revoked or the conversation is cleared. clear() starts from
 * nothing: no transcript, no "always allow", and `onClear` gives the tools fresh state (a new
 * Python interpreter), so nothing one conversation planted reaches the next.
 */
import type { AgentEvent, FinishReason } from '../agent/events';
import { runAgent } from '../agent/run-agent';
import type { EngineLike, LoadedModelInfo, SamplingParams, SerializedError } from '../engine/contract';
import { EngineError, serializeError } from '../engine/errors';
import type { Message, TextTokenizer, ToolCall } from '../format/types';
import type { Tool } from '../tools/tool';

export type ConfirmAnswer = 'once' | 'always' | 'deny';

export interface RunSettings {
  sampling: SamplingParams;
  maxSteps: number;
  maxTokensPerStep: number;
}

export interface ChatSessionOptions {
  engine: EngineLike;
  /** The page's tokenizer (available once a model is loaded). */
  tokenizer: () => TextTokenizer | null;
  /** The loaded model (tool mode is refused for checkpoints not trained on it). */
  model: () => LoadedModelInfo | null;
  /** The tools of the next run. */
  tools: () => Tool[];
  settings: () => RunSettings;
  /** Asks the user about a call that needs confirmation; `signal` fires when the run stops first. */
  confirm: (call: ToolCall, signal: AbortSignal) => Promise<ConfirmAnswer>;
  /** Called by clear(), after the run stopped: reset what the tools keep between calls. */
  onClear?: () => void;
}

export type SessionEvent =
  | { type: 'turn-start'; turn: number; userText: string; replaces: number | null }
  | { type: 'agent'; turn: number; event: AgentEvent }
  | { type: 'turn-end'; turn: number; reason: FinishReason; kept: boolean; error: SerializedError | null }
  | { type: 'busy'; busy: boolean }
  | { type: 'cleared' }
  /** The tools that run without asking changed (always allowed, revoked, cleared). */
  | { type: 'allowed'; names: string[] };

interface LastTurn {
  turn: number;
  userText: string;
  /** The transcript before this turn's user message. */
  before: Message[];
}

export class ChatSession {
  private messages: Message[] = [];
  private readonly listeners = new Set<(e: SessionEvent) => void>();
  private controller: AbortController | null = null;
  private last: LastTurn | null = null;
  private nextTurn = 1;
  private readonly allowed = new Set<string>();
  /** Bumped by clear(): a run that started before it does not write the transcript back. */
  private epoch = 0;

  constructor(private readonly o: ChatSessionOptions) {}

  get busy(): boolean {
    return this.controller !== null;
  }

  /** The transcript (a copy). */
  get transcript(): Message[] {
    return [...this.messages];
  }

  /** Tool names the user chose "always allow" for, in that order. */
  get alwaysAllowed(): string[] {
    return [...this.allowed];
  }

  /** Takes back "always allow" for one tool: its next call asks again. */
  revoke(name: string): void {
    if (this.allowed.delete(name)) this.emit({ type: 'allowed', names: this.alwaysAllowed });
  }

  get canRegenerate(): boolean {
    return !this.busy && this.last !== null;
  }

  on(listener: (e: SessionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sends a user message; resolves when the run has ended. Ignored while a run is going. */
  async send(text: string): Promise<void> {
    if (this.busy || text.trim() === '') return;
    await this.run(text, [...this.messages], null);
  }

  /**
   * Runs the last user message again from the transcript as it was before it. The prompt shares
   * everything up to the new answer with what the engine holds, so only the divergent suffix is
   * prefilled (the engine rolls its cache back to the common prefix).
   */
  async regenerate(): Promise<void> {
    if (!this.canRegenerate || !this.last) return;
    const { userText, before, turn } = this.last;
    await this.run(userText, before, turn);
  }

  /** Replaces the last user message with `text` and runs it (the shared prefix is reused, as for regenerate). */
  async editLast(text: string): Promise<void> {
    if (!this.canRegenerate || !this.last || text.trim() === '') return;
    const { before, turn } = this.last;
    await this.run(text, before, turn);
  }

  /** Stops the current run (generation, a tool, or a pending confirmation). */
  stop(): void {
    this.controller?.abort();
  }

  /** Forgets the conversation (the engine's cache is simply not extended by the next prompt). */
  clear(): void {
    this.stop();
    this.epoch++;
    this.messages = [];
    this.last = null;
    this.allowed.clear();
    this.o.onClear?.();
    this.emit({ type: 'cleared' });
    this.emit({ type: 'allowed', names: [] });
  }

  private emit(e: SessionEvent): void {
    for (const l of this.listeners) l(e);
  }

  private async confirm(call: ToolCall, signal: AbortSignal): Promise<boolean> {
    const name = call.kind === 'code' ? 'code_interpreter' : call.name;
    if (this.allowed.has(name)) return true;
    const answer = await this.o.confirm(call, signal);
    // An answer that arrives after the run stopped (New chat) allows nothing in the next conversation.
    if (answer === 'always' && !signal.aborted && !this.allowed.has(name)) {
      this.allowed.add(name);
      this.emit({ type: 'allowed', names: this.alwaysAllowed });
    }
    return answer !== 'deny';
  }

  private async run(userText: string, before: Message[], replaces: number | null): Promise<void> {
    const turn = this.nextTurn++;
    const epoch = this.epoch;
    const controller = new AbortController();
    this.controller = controller;
    this.last = { turn, userText, before };
    const settings = this.o.settings();
    this.emit({ type: 'busy', busy: true });
    this.emit({ type: 'turn-start', turn, userText, replaces });
    let reason: FinishReason = 'error';
    let error: SerializedError | null = null;
    let kept = false;
    let finished: Message[] = before;
    try {
      const tokenizer = this.o.tokenizer();
      if (!tokenizer) throw new EngineError('not_loaded', 'no model is loaded: load one first');
      const model = this.o.model();
      const events = runAgent({
        engine: this.o.engine,
        tokenizer,
        tools: this.o.tools(),
        conversation: { messages: [...before, { role: 'user', content: userText }] },
        maxSteps: settings.maxSteps,
        maxTokensPerStep: settings.maxTokensPerStep,
        // A model's own sampling (the micro model is greedy) wins over the user's defaults.
        sampling: { ...settings.sampling, ...(model?.sampling ?? {}) },
        signal: controller.signal,
        model,
        confirm: (call) => this.confirm(call, controller.signal),
      });
      for await (const event of events) {
        if (event.type === 'error') error = event.error;
        if (event.type === 'finish') {
          reason = event.reason;
          kept = reason !== 'error';
          finished = kept ? event.messages : before;
        }
        this.emit({ type: 'agent', turn, event });
      }
      if (epoch === this.epoch) this.messages = finished;
    } catch (e) {
      error = serializeError(e);
      if (epoch === this.epoch) this.messages = before;
    } finally {
      this.controller = null;
      this.emit({ type: 'turn-end', turn, reason, kept, error });
      this.emit({ type: 'busy', busy: false });
    }
  }
}
