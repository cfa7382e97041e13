import { describe, expect, it } from 'vitest';
import type { Role } from '../format/types';
import { parseContextPolicy, planContext, type ContextSizes } from './context-policy';

/** `n` exchanges of user (10) → assistant call (20) → ipython (30) → assistant answer (40): 100 tokens each. */
function exchanges(n: number, extra: Array<[Role, number]> = []): ContextSizes {
  const roles: Role[] = [];
  const tokens: number[] = [];
  for (let i = 0; i < n; i++) {
    for (const [role, t] of [['user', 10], ['assistant', 20], ['ipython', 30], ['assistant', 40]] as const) roles.push(role), tokens.push(t);
  }
  for (const [role, t] of extra) roles.push(role), tokens.push(t);
  return { roles, tokens, fixed: 50, movable: 0 };
}

const budget = { window: 1000, room: 200 };

describe('planContext', () => {
  it('drops nothing while the prompt leaves room for the step', () => {
    // 50 + 7 × 100 + 10 (a new question) = 760 ≤ 800
    expect(planContext(exchanges(7, [['user', 10]]), budget, 'rolling')).toEqual({ dropped: { from: 0, to: 0 }, tokens: 760, fits: true });
  });

  it('rolling: drops whole exchanges, oldest first, down to 60% of the room a prompt may use', () => {
    // 50 + 8 × 100 + 10 = 860 > 800: drop until ≤ 0.6 × 800 = 480 → keep 4 exchanges + the question (460)
    const plan = planContext(exchanges(8, [['user', 10]]), budget, 'rolling');
    expect(plan).toEqual({ dropped: { from: 0, to: 16 }, tokens: 460, fits: true });
    expect(exchanges(8, [['user', 10]]).roles[plan.dropped.to]).toBe('user');
  });

  it('the drop is stable: the turns after it keep the same dropped range until the window fills again', () => {
    const at = (n: number) => planContext(exchanges(n, [['user', 10]]), budget, 'rolling').dropped;
    expect(at(8)).toEqual({ from: 0, to: 16 });
    expect(at(9)).toEqual({ from: 0, to: 16 });
    expect(at(10)).toEqual({ from: 0, to: 16 });
    expect(at(11)).toEqual({ from: 0, to: 16 });
    // 50 + 7 × 100 + 10 = 760 still fits; the twelfth question overflows again and the range grows
    expect(at(12)).toEqual({ from: 0, to: 32 });
  });

  it('decides mid-turn too, before a step after a tool result, never splitting a call from its result', () => {
    // The 8th exchange in progress: user, call, result → 50 + 700 + 60 = 810 > 800 at the step after the result;
    // dropping 3 exchanges leaves 510 > 480, so 4 go (410)
    const sizes = exchanges(7, [['user', 10], ['assistant', 20], ['ipython', 30]]);
    expect(planContext(sizes, budget, 'rolling', sizes.roles.length - 1).dropped).toEqual({ from: 0, to: 0 });
    const plan = planContext(sizes, budget, 'rolling');
    expect(plan).toEqual({ dropped: { from: 0, to: 16 }, tokens: 410, fits: true });
  });

  it('a later request replays the same plan: the answer of the turn does not change what an earlier point dropped', () => {
    const during = planContext(exchanges(8, [['user', 10]]), budget, 'rolling').dropped;
    const after = planContext(exchanges(9), budget, 'rolling').dropped;
    expect(after).toEqual(during);
  });

  it('`until` gives the plan as it stood before the last prompt point', () => {
    // A long last question: 50 + 700 + 60 = 810 > 800 only at the last point
    const sizes = exchanges(7, [['user', 60]]);
    expect(planContext(sizes, budget, 'rolling', sizes.roles.length - 1)).toEqual({ dropped: { from: 0, to: 0 }, tokens: 750, fits: true });
    expect(planContext(sizes, budget, 'rolling')).toEqual({ dropped: { from: 0, to: 16 }, tokens: 410, fits: true });
  });

  it('keep-first: keeps the first user message and drops what follows it, oldest first', () => {
    const sizes = exchanges(8, [['user', 10]]);
    // At the step after the 8th exchange's result (810 > 800): the first question stays, the rest of the
    // first four exchanges goes (420 ≤ 480); then the last question: 50 + 10 + 400 + 10
    expect(planContext(sizes, budget, 'keep-first')).toEqual({ dropped: { from: 1, to: 16 }, tokens: 470, fits: true });
  });

  it('never drops a system message or the system block', () => {
    const sizes = exchanges(8, [['user', 10]]);
    const withSystem: ContextSizes = { ...sizes, roles: ['system', ...sizes.roles], tokens: [25, ...sizes.tokens] };
    const plan = planContext(withSystem, budget, 'rolling');
    expect(plan.dropped.from).toBe(1);
    expect(withSystem.roles[plan.dropped.to]).toBe('user');
  });

  it('stop: drops nothing and says the prompt does not fit', () => {
    expect(planContext(exchanges(8, [['user', 10]]), budget, 'stop')).toEqual({ dropped: { from: 0, to: 0 }, tokens: 860, fits: false });
  });

  it('cannot make room when the exchange being answered is larger than the window allows', () => {
    const plan = planContext(exchanges(2, [['user', 10], ['assistant', 20], ['ipython', 900]]), budget, 'rolling');
    expect(plan.dropped).toEqual({ from: 0, to: 8 });
    expect(plan.fits).toBe(false);
    // keep-first cannot drop the first exchange's question when it is the one being answered
    expect(planContext({ roles: ['user'], tokens: [900], fixed: 50, movable: 0 }, budget, 'keep-first')).toEqual({ dropped: { from: 0, to: 0 }, tokens: 950, fits: false });
  });

  it('the custom tools move to the first kept user message: their tokens stay counted', () => {
    const sizes = { ...exchanges(8, [['user', 10]]), movable: 5 };
    const tokens = [...sizes.tokens];
    tokens[0] = 15; // the first user message carries the tools
    const plan = planContext({ ...sizes, tokens }, budget, 'rolling');
    expect(plan.dropped).toEqual({ from: 0, to: 16 });
    expect(plan.tokens).toBe(465);
  });

  it('reads a policy by its name only (the widget attribute, the CLI flag)', () => {
    expect(['rolling', 'keep-first', 'stop'].map(parseContextPolicy)).toEqual(['rolling', 'keep-first', 'stop']);
    expect([' rolling', 'truncate-middle', null, 1].map(parseContextPolicy)).toEqual([null, null, null, null]);
  });

  it('refuses sizes that do not describe a transcript', () => {
    const sizes = exchanges(1);
    expect(() => planContext({ ...sizes, tokens: [1] }, budget, 'rolling')).toThrow(/one entry per message/);
    expect(() => planContext(sizes, { window: 100, room: 100 }, 'rolling')).toThrow(/room/);
    expect(() => planContext(sizes, { ...budget, keep: 0 }, 'rolling')).toThrow(/keep/);
    expect(() => planContext(sizes, budget, 'rolling', 9)).toThrow(/no prefix/);
  });
});
