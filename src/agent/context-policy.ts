/**
 * What stays in the model's context when a conversation outgrows the window: a pure function of the
 * transcript's messages (their roles and token counts), the window and the policy.
 *
 * Policies: `rolling` drops the oldest exchanges (a user message and everything up to the next one);
 * `keep-first` keeps the first user message and drops what follows it, oldest first; `stop` drops
 * nothing. Nothing before the first user message (a system message, the system block) is ever dropped,
 * nor the last user message and what followed it (the exchange being answered). The dropped messages
 * are one range that ends at a user message, so a call never loses its ipython result nor a result its
 * call, and what is kept stays a valid Llama 3.1 turn order.
 *
 * Invariants: the plan is a fold over every point where a prompt was generated (after a user message or
 * the last result of a call, before an assistant message), in order, and a point that does not fit drops
 * whole exchanges until what is kept takes at most `keep` of the room a prompt may use (not only until it
 * fits): a conversation that grows keeps one stable prefix for many turns, so the KV cache reuses it,
 * and the same messages always give the same plan (a later turn, a reload or another request of the
 * same conversation drop exactly what an earlier one did). The range only grows during the fold.
 */
import type { Role } from '../format/types';

export const CONTEXT_POLICIES = ['rolling', 'keep-first', 'stop'] as const;
export type ContextPolicy = (typeof CONTEXT_POLICIES)[number];

export const POLICY_LABELS: Readonly<Record<ContextPolicy, string>> = {
  rolling: 'Rolling window: drop the oldest messages',
  'keep-first': 'Keep the first message, drop the oldest after it',
  stop: 'Stop: end the chat when it is full',
};

/** A policy's name, or null for anything else. */
export function parseContextPolicy(value: unknown): ContextPolicy | null {
  return CONTEXT_POLICIES.find((p) => p === value) ?? null;
}

/** Messages `from` (inclusive) to `to` (exclusive) are out of the context; empty when `from === to`. */
export interface DroppedRange {
  from: number;
  to: number;
}

export const NOTHING_DROPPED: DroppedRange = Object.freeze({ from: 0, to: 0 });

/** The transcript as the policy sees it. */
export interface ContextSizes {
  /** Per message, its role (`tool` written as `ipython`). */
  roles: readonly Role[];
  /** Per message, the tokens it takes in the transcript. */
  tokens: readonly number[];
  /** `<|begin_of_text|>` and the system block. */
  fixed: number;
  /** Tokens the custom tools add to the first user message (included in its count); they move to the first kept one. */
  movable: number;
}

export interface ContextBudget {
  window: number;
  /** Tokens a step needs after the transcript: the assistant header and the step's token limit. */
  room: number;
  /** The share of `window − room` kept after a drop (default 0.6). */
  keep?: number;
}

export interface ContextPlan {
  dropped: DroppedRange;
  /** Tokens of the kept transcript (no generation prompt). */
  tokens: number;
  /** The kept transcript leaves `room` in the window (at the last prompt point, else now). */
  fits: boolean;
}

export const DEFAULT_KEEP = 0.6;

/** The plan as it stood after the first `until` messages (default all): the prompt points up to there. */
export function planContext(sizes: ContextSizes, budget: ContextBudget, policy: ContextPolicy, until = sizes.roles.length): ContextPlan {
  checkSizes(sizes, budget, until);
  const { roles } = sizes;
  const before = prefixSums(sizes.tokens);
  const firstUser = roles.indexOf('user');
  const from = policy === 'keep-first' ? firstUser + 1 : roles[0] === 'system' ? 1 : 0;
  const usable = budget.window - budget.room;
  const target = Math.floor((budget.keep ?? DEFAULT_KEEP) * usable);
  const kept = (end: number, to: number): number => {
    const out = sizes.fixed + before[end]! - (before[Math.min(to, end)]! - before[Math.min(from, to, end)]!);
    return firstUser >= from && firstUser < to ? out + sizes.movable : out;
  };
  let to = from;
  let fits = true;
  let lastUser = -1;
  for (let p = 1; p <= until; p++) {
    if (roles[p - 1] === 'user') lastUser = p - 1;
    if (!isPromptPoint(roles, p)) continue;
    fits = kept(p, to) <= usable;
    if (fits || policy === 'stop' || firstUser < 0) continue;
    let next = -1;
    for (let u = Math.max(to, from); u <= lastUser; u++) {
      if (roles[u] !== 'user') continue;
      next = u;
      if (kept(p, u) <= target) break;
    }
    if (next < 0) continue;
    to = next;
    fits = kept(p, to) <= usable;
  }
  if (!isPromptPoint(roles, until)) fits = kept(until, to) <= usable;
  const dropped = to > from ? { from, to } : NOTHING_DROPPED;
  return { dropped, tokens: kept(until, to), fits };
}

/** A prompt is generated after `p` messages: they end with a user message or a call's last result, and an assistant message (or nothing yet) follows. */
function isPromptPoint(roles: readonly Role[], p: number): boolean {
  if (p === 0) return false;
  const last = roles[p - 1];
  if (last !== 'user' && last !== 'ipython') return false;
  return p === roles.length || roles[p] === 'assistant';
}

function prefixSums(tokens: readonly number[]): number[] {
  const out = [0];
  for (const n of tokens) out.push(out[out.length - 1]! + n);
  return out;
}

function checkSizes(sizes: ContextSizes, budget: ContextBudget, until: number): void {
  if (sizes.roles.length !== sizes.tokens.length) throw new RangeError('roles and tokens must have one entry per message');
  if (!(Number.isInteger(until) && until >= 0 && until <= sizes.roles.length)) throw new RangeError(`no prefix of ${until} messages`);
  if (!(Number.isInteger(budget.window) && budget.window > 0)) throw new RangeError('the window must be a positive integer');
  if (!(Number.isInteger(budget.room) && budget.room >= 0 && budget.room < budget.window)) throw new RangeError('the room must be an integer from 0 to below the window');
  if (budget.keep !== undefined && !(budget.keep > 0 && budget.keep <= 1)) throw new RangeError('keep must be a share in (0, 1]');
}
