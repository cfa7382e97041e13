/**
 * One conversation with the loaded model, no DOM: send, stop, edit-and-resend any user message,
 * regenerate any answer, switch between the alternatives, start over, restore a stored one. The
 * conversation is a tree of turns (conversation-tree.ts); what is shown is its active path, and every
 * turn's reply is what the run's `finish` returned (emitted ids, terminator and calls kept), never rebuilt. So
 * each prompt shares its longest prefix with what the engine last saw, and only what diverges is
 * prefilled — a follow-up after the answer, a regenerate of an older turn, an edited message.
 *
 * Invariants: at most one run at a time; every run ends with exactly one `turn-end`; a run that ends
 * in an error adds nothing to the tree (nothing half-valid is kept); a stopped run keeps what was
 * said; the kept transcript always renders again (the engine never samples a structural special
 * token, so emitted ids always replay); clear() stops a run and lets its turn end (kept, as a
 * stopped turn) before forgetting; a run started before restore() writes nothing back. "Always allow" is per tool name and per conversation (stored with it): it lasts until it is
 * revoked or another conversation is shown. clear() and restore() start from nothing of the previous
 * conversation: no transcript, no "always allow" but the shown conversation's own, and `onClear` gives
 * the tools fresh state (a new Python interpreter), so nothing one conversation planted reaches another.
 */
import type { AgentEvent, FinishReason } from '../agent/events';
import { NOTHING_DROPPED, type ContextPolicy, type DroppedRange } from '../agent/context-policy';
import { ContextTranscript, contextFit } from '../agent/context-transcript';
import { runAgent } from '../agent/run-agent';
import { stepTokenCap } from '../agent/step-cap';
import { ToolSet } from '../agent/tool-set';
import type { EngineLike, LoadedModelInfo, SamplingParams, SerializedError } from '../engine/contract';
import { EngineError, serializeError } from '../engine/errors';
import { conversationSystemOptions, type ToolOptions } from '../format/system-options';
import { Transcript, type SystemOptions } from '../format/transcript';
import type { Message, TextTokenizer, ToolCall } from '../format/types';
import type { Tool, ToolDestination } from '../tools/tool';
import { ConversationTree, ROOT, transcriptOf, type StoredToolResult, type TreeData, type TurnNode } from './conversation-tree';
import type { RenderedOptions } from './stored-conversation';

export type ConfirmAnswer = 'once' | 'always' | 'deny';

export interface RunSettings {
  sampling: SamplingParams;
  maxSteps: number;
  maxTokensPerStep: number;
  /** Ask about tool calls answered on this device too (absent: they run without asking). */
  confirmOnDevice?: boolean;
  /** What goes when a step would not fit the window (default `rolling`). */
  contextPolicy?: ContextPolicy;
}

export interface ChatSessionOptions {
  engine: EngineLike;
  /** The page's tokenizer (available once a model is loaded). */
  tokenizer: () => TextTokenizer | null;
  /** The loaded model (tool mode is refused for checkpoints not trained on it). */
  model: () => LoadedModelInfo | null;
  /** The tools of the next run; read again before each of its steps (MCP servers, WebMCP tools can change). */
  tools: () => Tool[] | Promise<Tool[]>;
  settings: () => RunSettings;
  /** Asks the user about a call that needs confirmation; `signal` fires when the run stops first. */
  confirm: (call: ToolCall, signal: AbortSignal, where?: ToolDestination) => Promise<ConfirmAnswer>;
  /** Called by clear(), after the run stopped: reset what the tools keep between calls. */
  onClear?: () => void;
  /** Today's date (a test can pin it). */
  today?: () => Date;
}

export type SessionEvent =
  /** A run starts; `replaces`: the turn it is an alternative of (regenerate, edit), or null for a new turn. */
  | { type: 'turn-start'; turn: number; userText: string; parent: string; replaces: string | null }
  | { type: 'agent'; turn: number; event: AgentEvent }
  /** `node`: the turn added to the tree when the run was kept, else null. */
  | { type: 'turn-end'; turn: number; reason: FinishReason; kept: boolean; error: SerializedError | null; node: string | null }
  | { type: 'busy'; busy: boolean }
  | { type: 'cleared' }
  /** The tools that run without asking changed (always allowed, revoked, cleared, restored). */
  | { type: 'allowed'; names: string[] }
  /** The shown branch changed (an alternative selected, a stored conversation restored): show the active path again. */
  | { type: 'switched' };

/** What is stored of a session (with the conversation's id, title and dates: stored-conversation.ts). */
export interface SessionSnapshot {
  tree: TreeData;
  allowedTools: string[];
  renderOptions: RenderedOptions;
}

/** The rendered transcript of one branch: the turns it covers, first to last. */
interface Rendered {
  transcript: Transcript;
  turns: string[];
}

interface FailedRun {
  userText: string;
  parent: string;
  replaces: string | null;
}

export class ChatSession {
  private tree = ConversationTree.empty();
  private readonly listeners = new Set<(e: SessionEvent) => void>();
  private controller: AbortController | null = null;
  private failed: FailedRun | null = null;
  private runs = 0;
  private allowed = new Set<string>();
  private rendered: RenderedOptions = {};
  /** The last branch rendered (after a run: the run's own transcript), grown and sliced rather than rendered again. */
  private shown: Rendered | null = null;
  /** The run going on, settled when its turn has ended. */
  private running: Promise<void> | null = null;
  /** The last context() answer and what it was computed for (a branch renders again only when it changed). */
  private seen: { key: string; value: { tokens: number; dropped: DroppedRange } } | null = null;
  /** Bumped by clear() and restore(): a run that started before either writes nothing back. */
  private epoch = 0;

  constructor(private readonly o: ChatSessionOptions) {}

  get busy(): boolean {
    return this.controller !== null;
  }

  /** The shown branch's messages (a copy). */
  get transcript(): Message[] {
    return transcriptOf(this.tree.activePath());
  }

  /** The shown turns, first to last. */
  get path(): TurnNode[] {
    return this.tree.activePath();
  }

  /** A turn and its alternatives (itself included), in creation order. */
  siblings(id: string): string[] {
    return this.tree.siblings(id);
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
    return !this.busy && (this.failed !== null || this.tree.leaf !== ROOT);
  }

  on(listener: (e: SessionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sends a user message after the shown turns; resolves when the run has ended. Ignored while a run is going. */
  async send(text: string): Promise<void> {
    if (this.busy || text.trim() === '') return;
    await this.run(text, this.tree.leaf, null);
  }

  /**
   * Runs turn `id`'s user message again from the transcript before it, as a new alternative of that
   * turn; without an id, the last failed run or else the last turn. Only what follows the shared
   * prefix is prefilled (the engine rolls its cache back to the common prefix).
   */
  async regenerate(id?: string): Promise<void> {
    if (!this.canRegenerate) return;
    if (id === undefined && this.failed) {
      const { userText, parent, replaces } = this.failed;
      return this.run(userText, parent, replaces);
    }
    const node = this.tree.node(id ?? this.tree.leaf);
    if (node) await this.run(node.userText, node.parent, node.id);
  }

  /** Sends `text` in place of turn `id`'s user message, as a new alternative of that turn. */
  async edit(id: string, text: string): Promise<void> {
    const node = this.tree.node(id);
    if (this.busy || !node || text.trim() === '') return;
    await this.run(text, node.parent, node.id);
  }

  /** Replaces the last user message with `text` and runs it. */
  async editLast(text: string): Promise<void> {
    await this.edit(this.tree.leaf, text);
  }

  /** Shows alternative `id` (and its continuation) instead of its siblings. */
  switchTo(id: string): void {
    if (this.busy || !this.tree.node(id)) return;
    this.tree.select(id);
    this.emit({ type: 'switched' });
  }

  /** Stops the current run (generation, a tool, or a pending confirmation). */
  stop(): void {
    this.controller?.abort();
  }

  /**
   * Forgets the conversation (the engine's cache is simply not extended by the next prompt). A run
   * going on is stopped first and its turn ends as a stopped turn of the conversation being left (a
   * pending confirmation is declined, visibly): it is kept, and stored with it, not lost.
   */
  async clear(): Promise<void> {
    const running = this.running;
    if (running) {
      this.stop();
      await running;
    }
    this.reset();
    this.emit({ type: 'cleared' });
    this.emit({ type: 'allowed', names: [] });
  }

  /** Shows a stored conversation; the next message continues its shown branch. */
  restore(snapshot: SessionSnapshot): void {
    this.reset();
    this.tree = ConversationTree.from(snapshot.tree);
    this.allowed = new Set(snapshot.allowedTools);
    this.rendered = { ...snapshot.renderOptions };
    this.emit({ type: 'switched' });
    this.emit({ type: 'allowed', names: this.alwaysAllowed });
  }

  snapshot(): SessionSnapshot {
    return { tree: this.tree.toData(), allowedTools: this.alwaysAllowed, renderOptions: { ...this.rendered } };
  }

  /**
   * Tokens the shown branch takes in the context: what the model sees of its transcript, without a
   * generation prompt (after a run, what the KV cache holds: the last prompt, the emitted ids and the
   * stop id); null before a tokenizer is there, or when the branch is not renderable on its own (a
   * stopped call still waiting on its result).
   */
  contextTokens(): number | null {
    return this.context()?.tokens ?? null;
  }

  /**
   * The shown branch as the model sees it with the loaded model's window and the settings' policy:
   * its tokens and the messages out of the context (indices into `transcript`); null as for contextTokens().
   */
  context(): { tokens: number; dropped: DroppedRange } | null {
    const tokenizer = this.o.tokenizer();
    if (!tokenizer) return null;
    const path = this.tree.activePath();
    if (path.length === 0) return { tokens: 0, dropped: NOTHING_DROPPED };
    const window = this.o.model()?.contextWindow;
    const settings = this.o.settings();
    const maxTokens = stepTokenCap(settings.maxTokensPerStep, window);
    const policy = settings.contextPolicy ?? 'rolling';
    const key = JSON.stringify([path.map((n) => n.id), window, maxTokens, policy, this.rendered]);
    if (this.seen?.key === key) return this.seen.value;
    try {
      const full = this.transcriptAt(path, tokenizer, this.rendered);
      const seen = new ContextTranscript(full, contextFit(full, window, maxTokens, policy), tokenizer);
      this.seen = { key, value: { tokens: seen.length, dropped: seen.dropped } };
      return this.seen.value;
    } catch {
      return null;
    }
  }

  /**
   * The rendered transcript of `path` (a copy, free to grow): the shown one, or a prefix of it, when
   * it covers the path with these options; otherwise rendered now and remembered.
   */
  private transcriptAt(path: readonly TurnNode[], tokenizer: TextTokenizer, options: SystemOptions): Transcript {
    const turns = path.map((n) => n.id);
    const shown = this.shown;
    const sameOptions = shown !== null && JSON.stringify(shown.transcript.options) === JSON.stringify(options);
    if (shown && sameOptions && turns.length <= shown.turns.length && turns.every((id, i) => shown.turns[i] === id)) {
      return shown.transcript.slice(transcriptOf(path).length);
    }
    const transcript = new Transcript(tokenizer, options, transcriptOf(path));
    this.shown = { transcript: transcript.slice(transcript.messages.length), turns };
    return transcript;
  }

  private reset(): void {
    this.stop();
    this.epoch++;
    this.tree = ConversationTree.empty();
    this.failed = null;
    this.rendered = {};
    this.shown = null;
    this.allowed = new Set();
    this.o.onClear?.();
  }

  private emit(e: SessionEvent): void {
    for (const l of this.listeners) l(e);
  }

  private async confirm(call: ToolCall, signal: AbortSignal, where?: ToolDestination): Promise<boolean> {
    const name = call.kind === 'code' ? 'code_interpreter' : call.name;
    if (this.allowed.has(name)) return true;
    const answer = await this.o.confirm(call, signal, where);
    // An answer that arrives after the run stopped (New chat) allows nothing in the next conversation.
    if (answer === 'always' && !signal.aborted && !this.allowed.has(name)) {
      this.allowed.add(name);
      this.emit({ type: 'allowed', names: this.alwaysAllowed });
    }
    return answer !== 'deny';
  }

  private run(userText: string, parent: string, replaces: string | null): Promise<void> {
    const running = this.runTurn(userText, parent, replaces);
    this.running = running;
    void running.finally(() => {
      if (this.running === running) this.running = null;
    });
    return running;
  }

  private async runTurn(userText: string, parent: string, replaces: string | null): Promise<void> {
    const turn = ++this.runs;
    const epoch = this.epoch;
    const controller = new AbortController();
    this.controller = controller;
    const beforePath = this.tree.pathTo(parent);
    const before = transcriptOf(beforePath);
    const settings = this.o.settings();
    this.emit({ type: 'busy', busy: true });
    this.emit({ type: 'turn-start', turn, userText, parent, replaces });
    let reason: FinishReason = 'error';
    let error: SerializedError | null = null;
    let reply: Message[] | null = null;
    const toolResults: StoredToolResult[] = [];
    const stats = { tokens: 0, decodeMs: 0, model: '' };
    let rendered: RenderedOptions = {};
    let transcript: Transcript | null = null;
    try {
      const tokenizer = this.o.tokenizer();
      if (!tokenizer) throw new EngineError('not_loaded', 'no model is loaded: load one first');
      const model = this.o.model();
      stats.model = model?.modelId ?? '';
      const tools = await this.o.tools();
      rendered = renderedOptions(tools.length > 0 ? new ToolSet(tools).renderOptions() : null, this.rendered.date, this.o.today);
      transcript = this.transcriptAt(beforePath, tokenizer, rendered);
      transcript.append({ role: 'user', content: userText });
      const events = runAgent({
        engine: this.o.engine,
        tokenizer,
        tools,
        refreshTools: async () => await this.o.tools(),
        conversation: { ...rendered, messages: transcript.messages },
        transcript,
        maxSteps: settings.maxSteps,
        maxTokensPerStep: settings.maxTokensPerStep,
        contextPolicy: settings.contextPolicy,
        // A model's own sampling (the micro model is greedy) wins over the user's defaults.
        sampling: { ...settings.sampling, ...(model?.sampling ?? {}) },
        signal: controller.signal,
        model,
        confirm: (call, where) => this.confirm(call, controller.signal, where),
        ...(settings.confirmOnDevice ? { confirmOnDevice: true } : {}),
      });
      for await (const event of events) {
        if (event.type === 'error') error = event.error;
        if (event.type === 'step-finish') (stats.tokens += event.stats.decodedTokens), (stats.decodeMs += event.stats.decodeMs);
        if (event.type === 'tool-result') {
          toolResults.push({ callId: event.callId, isError: event.isError, durationMs: event.durationMs, ...(event.source ? { source: event.source } : {}), ...(event.failure ? { failure: event.failure } : {}) });
        }
        if (event.type === 'finish') {
          reason = event.reason;
          reply = reason === 'error' ? null : event.messages.slice(before.length + 1);
        }
        this.emit({ type: 'agent', turn, event });
      }
    } catch (e) {
      error = serializeError(e);
      reply = null;
    } finally {
      this.controller = null;
      let node: string | null = null;
      if (epoch === this.epoch) {
        if (reply) {
          node = newId();
          this.tree.add({ id: node, parent, userText, reply, reason, toolResults, createdAt: Date.now(), ...(stats.tokens > 0 ? { stats } : {}) });
          this.rendered = rendered;
          this.shown = transcript ? { transcript, turns: [...beforePath.map((n) => n.id), node] } : null;
          this.failed = null;
        } else this.failed = { userText, parent, replaces };
      }
      this.emit({ type: 'turn-end', turn, reason, kept: reply !== null, error, node });
      this.emit({ type: 'busy', busy: false });
    }
  }
}

/**
 * What a run renders besides its messages: with tools, their options and the conversation's date
 * (the one it already has, else today's; format/system-options.ts); without tools, nothing.
 */
function renderedOptions(offered: ToolOptions | null, date: string | undefined, today?: () => Date): RenderedOptions {
  if (offered === null) return {};
  return conversationSystemOptions(date !== undefined ? { date } : {}, offered, today) as RenderedOptions;
}

function newId(): string {
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}
