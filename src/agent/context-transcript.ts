/**
 * A conversation's whole transcript and the part of it the model sees: every message is appended to
 * both; before a step, `fit()` applies the context policy (context-policy.ts) to the whole one and, when
 * the dropped range grew, renders the kept messages once into a new context transcript that grows from
 * then on. With nothing dropped the two are one transcript.
 *
 * Invariants: `messages` are all the messages, dropped ones included (what a chat stores); `prompt()`
 * and `length` are the context's; the dropped range is the policy's plan for the whole transcript, so
 * it only grows while messages are appended, and it is the same whoever computes it from the same
 * messages (a later turn, the chat page, the Inspector).
 */
import { EngineError } from '../engine/errors';
import { customToolsUserContent } from '../format/custom-tools';
import { normalizeRole } from '../format/conversation';
import type { SystemOptions, Transcript } from '../format/transcript';
import type { EmittedMessage, Message, TextTokenizer } from '../format/types';
import { NOTHING_DROPPED, planContext, type ContextBudget, type ContextPlan, type ContextPolicy, type DroppedRange } from './context-policy';

export interface ContextFit {
  policy: ContextPolicy;
  budget: ContextBudget;
  /**
   * The least room a step may run with: when the policy cannot make the full `budget.room` (nothing
   * left to drop, or `stop`), a step that still has this much runs, shorter (the engine clamps its
   * token limit to what is left); only below it is the context overflowed.
   */
  minimumRoom: number;
}

/** Tokens a step may be shortened to before the context counts as full. */
export const MIN_STEP_TOKENS = 32;

/** What one `fit()` dropped. */
export interface ContextDrop {
  dropped: DroppedRange;
  /** The messages that left the context now (not those dropped before). */
  messages: Message[];
  tokensBefore: number;
  tokensAfter: number;
}

export class ContextTranscript {
  private context: Transcript;
  private range: DroppedRange = NOTHING_DROPPED;
  private movable: number | null = null;

  /** `full`: the whole conversation, rendered; it is grown in place. With `settings` null (no known window) nothing is ever dropped. */
  constructor(
    readonly full: Transcript,
    private readonly settings: ContextFit | null,
    private readonly tokenizer: TextTokenizer,
  ) {
    this.context = full;
    // What earlier steps dropped; the next fit() makes room for the prompt after the last message.
    const plan = this.plan(Math.max(0, full.messages.length - 1));
    if (plan) this.drop(plan.dropped);
  }

  get dropped(): DroppedRange {
    return this.range;
  }

  /** All messages, dropped ones included. */
  get messages(): Message[] {
    return this.full.messages;
  }

  /** Tokens of the context (what the KV cache holds after the last message). */
  get length(): number {
    return this.context.length;
  }

  /** The transcript the model sees. */
  get seen(): Transcript {
    return this.context;
  }

  /** The system options the transcript is written with. */
  get options(): SystemOptions {
    return this.full.options;
  }

  /** Writes the same messages under new system options (a tool list that changed mid-run); what was dropped stays dropped. */
  rerender(options: SystemOptions): void {
    this.full.rerender(options);
    this.movable = null;
    this.drop(this.range);
  }

  prompt(): number[] {
    return this.context.prompt();
  }

  text(ids: readonly number[]): string {
    return this.context.text(ids);
  }

  append(message: Message): void {
    this.full.append(message);
    if (this.context !== this.full) this.context.append(message);
  }

  appendEncoded(message: Message & { content: string }, contentIds: readonly number[]): void {
    this.full.appendEncoded(message, contentIds);
    if (this.context !== this.full) this.context.appendEncoded(message, contentIds);
  }

  appendEmitted(message: EmittedMessage): void {
    this.full.appendEmitted(message);
    if (this.context !== this.full) this.context.appendEmitted(message);
  }

  /**
   * Makes room for the next step as the policy says: null when nothing more had to go, else what was
   * dropped. Throws EngineError `context_overflow` when the policy cannot make room (`stop`, or an
   * exchange larger than the window), naming the sizes.
   */
  fit(): ContextDrop | null {
    const plan = this.plan();
    if (!plan) return null;
    const tokensBefore = this.context.length;
    const before = this.range;
    const grew = plan.dropped.to > before.to || plan.dropped.from < before.from;
    if (grew) this.drop(plan.dropped);
    if (!plan.fits && this.context.length + this.settings!.minimumRoom > this.settings!.budget.window) throw overflow(this.settings!, plan, this.context.length);
    if (!grew) return null;
    const messages = this.full.messages.filter((_, i) => i >= plan.dropped.from && i < plan.dropped.to && !(i >= before.from && i < before.to));
    return { dropped: plan.dropped, messages, tokensBefore, tokensAfter: this.context.length };
  }

  /** Null when nothing can have to go: no window, or the whole transcript leaves the room. */
  private plan(until?: number): ContextPlan | null {
    if (!this.settings) return null;
    const { window, room } = this.settings.budget;
    if (this.full.length + room <= window) return null;
    const roles = this.full.messages.map((m) => normalizeRole(m.role));
    const tools = this.full.options.tools ?? [];
    this.movable ??= tools.length > 0 ? this.tokenizer.encode(customToolsUserContent(tools, '')).length : 0;
    return planContext({ roles, tokens: this.full.messageTokens(), fixed: this.full.fixedTokens, movable: this.movable }, this.settings.budget, this.settings.policy, until);
  }

  private drop(range: DroppedRange): void {
    this.range = range;
    this.context = range.to > range.from ? this.full.without(range.from, range.to) : this.full;
  }
}

/**
 * How a run fits its steps into `window` (null when the window is unknown): the room a step needs
 * after the transcript is the assistant header and the step's token limit.
 */
export function contextFit(transcript: Transcript, window: number | undefined, maxTokens: number, policy: ContextPolicy): ContextFit | null {
  if (window === undefined) return null;
  const room = Math.min(window - 1, transcript.promptHeaderTokens + maxTokens);
  return { policy, budget: { window, room }, minimumRoom: Math.min(room, transcript.promptHeaderTokens + MIN_STEP_TOKENS) };
}

function overflow(settings: ContextFit, plan: ContextPlan, tokens: number): EngineError {
  const { window, room } = settings.budget;
  const sizes = `${tokens} tokens are in the context, ${room} more are needed for the next step, and the window is ${window}`;
  if (settings.policy === 'stop') {
    return new EngineError('context_overflow', `the conversation fills the context window (${sizes}); the context policy is "stop", so nothing is dropped`);
  }
  const what = plan.dropped.to > plan.dropped.from ? `after dropping ${plan.dropped.to - plan.dropped.from} earlier messages` : 'and no earlier message can be dropped';
  return new EngineError('context_overflow', `the last message and what followed it do not fit the context window ${what} (${sizes})`);
}
