/**
 * Section `context`: what the context policy's block drop saves the KV cache. A 60-question chat on a
 * 1,024-token window (the micro model's; each exchange: question, call, result, answer), planned by
 * agent/context-policy.ts with its block drop (down to 60% of the room a prompt may use) and with a drop
 * of just enough (keep 99%), side by side. The prefill per step is counted, not timed: after a drop the
 * engine's cache keeps only the system block, so the step prefills everything kept; otherwise it
 * prefills only what was appended. Throws unless every prompt fits and the block drop prefills less.
 */
import { planContext, type ContextSizes, type DroppedRange } from '../src/agent/context-policy';
import type { Role } from '../src/format/types';
import { round } from './measure';
import type { BenchSection } from './section';

const WINDOW = 1024;
/** The micro model's step cap (a quarter of the window) and the assistant header. */
const ROOM = 256 + 4;
const QUESTIONS = 60;
const FIXED = 60;
/** Tokens of one exchange's messages, as the micro model's searched questions have them. */
const EXCHANGE: ReadonlyArray<[Role, number]> = [['user', 16], ['assistant', 22], ['ipython', 70], ['assistant', 24]];

export const contextSection: BenchSection = {
  name: 'context',
  summary: `${QUESTIONS} questions on a ${WINDOW}-token window: prefilled ids with the block drop vs dropping just enough`,
  async run() {
    const blocks = simulate(0.6);
    const justEnough = simulate(0.99);
    if (!(blocks.prefilled < justEnough.prefilled)) throw new Error(`the block drop prefilled ${blocks.prefilled} ids, dropping just enough ${justEnough.prefilled}`);
    return {
      questions: QUESTIONS,
      window: WINDOW,
      prefilledBlocks: blocks.prefilled,
      prefilledJustEnough: justEnough.prefilled,
      prefilledRatio: round(justEnough.prefilled / blocks.prefilled),
      dropsBlocks: blocks.drops,
      dropsJustEnough: justEnough.drops,
      largestStepPrefillBlocks: blocks.largest,
      largestStepPrefillJustEnough: justEnough.largest,
    };
  },
};

/** Every prompt point of the chat planned with `keep`: ids prefilled in all, drops, the largest one step prefilled. */
export function simulate(keep: number): { prefilled: number; drops: number; largest: number } {
  const roles: Role[] = [];
  const tokens: number[] = [];
  let prefilled = 0;
  let drops = 0;
  let largest = 0;
  let before: DroppedRange = { from: 0, to: 0 };
  let cached = 0;
  for (let q = 0; q < QUESTIONS; q++) {
    for (const [role, n] of EXCHANGE) {
      roles.push(role);
      tokens.push(n);
      if (role === 'assistant') continue;
      // A prompt point: the step after this message.
      const sizes: ContextSizes = { roles, tokens, fixed: FIXED, movable: 0 };
      const plan = planContext(sizes, { window: WINDOW, room: ROOM, keep }, 'rolling');
      if (!plan.fits) throw new Error(`question ${q + 1}: the prompt does not fit`);
      const dropped = plan.dropped.to !== before.to;
      const step = dropped ? plan.tokens - FIXED : plan.tokens - cached;
      if (dropped) drops++;
      prefilled += step;
      largest = Math.max(largest, step);
      before = plan.dropped;
      // The step's reply is appended by the engine itself: the cache then holds it too.
      const reply = EXCHANGE[roles.length % EXCHANGE.length]?.[1] ?? 0;
      cached = plan.tokens + reply;
    }
  }
  return { prefilled, drops, largest };
}
