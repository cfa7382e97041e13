/**
 * The context policy in the agent loop, on the tiny model (real engine, real KV cache) with its
 * replies forced: a long chat drops whole earlier exchanges before a step would not fit, keeps the
 * kept prefix for the turns after, and says so when no policy can make room.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadedModelInfo } from '../engine/contract';
import { loadTokenizer } from '../format/tokenizer/load-node';
import type { Message } from '../format/types';
import { defineCustomTool } from '../tools/custom-tool';
import { createNodeEngine } from '../../worker/create-node-engine';
import type { Engine } from '../../worker/engine';
import { collect, ofType } from './collect-events';
import type { ContextPolicy } from './context-policy';
import { runAgent } from './run-agent';
import { forceSteps } from '../../tests/support/force-steps';

const tokenizer = loadTokenizer();
let engine: Engine;
let info: LoadedModelInfo;
beforeAll(async () => {
  engine = createNodeEngine();
  info = await engine.load('tiny-llama');
});
afterAll(() => engine.unload());

const DATE = '11 August 2026';
const WINDOW = 400;
const weather = defineCustomTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  readOnly: true,
  execute: async ({ city }) => ({ city, temperature_c: 21, sky: 'clear with a light breeze from the west' }),
});
const CALL = (city: string) => `{"name": "get_weather", "parameters": {"city": "${city}"}}<|eot_id|>`;
const ANSWER = (city: string) => `It is 21 degrees in ${city} and the sky is clear.<|eot_id|>`;
const CITIES = ['Paris', 'Oslo', 'Rome', 'Lima', 'Cairo', 'Tokyo', 'Quito', 'Perth', 'Dakar', 'Hanoi'];

/** One question asked after `history`, on a model whose window is WINDOW tokens and 64 tokens per step. */
async function ask(history: Message[], city: string, policy: ContextPolicy = 'rolling', scripts = [CALL(city), ANSWER(city)]) {
  const messages: Message[] = [...history, { role: 'user', content: `Weather in ${city}?` }];
  const events = await collect(
    runAgent({
      engine, tokenizer, tools: [weather], conversation: { date: DATE, messages },
      model: { ...info, contextWindow: WINDOW }, maxTokensPerStep: 64, contextPolicy: policy,
      logitsProcessors: forceSteps(scripts, tokenizer), sampling: { temperature: 0, seed: 1 },
    }),
  );
  return { events, finish: ofType(events, 'finish')[0]!, steps: ofType(events, 'step-finish'), drops: ofType(events, 'context-dropped') };
}

describe('the context policy in the loop', () => {
  it('rolling: a long chat goes on; each step fits, whole exchanges leave, and the prefix after a drop is reused', async () => {
    let history: Message[] = [];
    const turns = [];
    for (const city of CITIES) {
      const turn = await ask(history, city);
      expect(turn.finish.reason, JSON.stringify(ofType(turn.events, 'error'))).toBe('done');
      expect(turn.finish.messages.slice(0, history.length)).toEqual(history);
      history = turn.finish.messages;
      turns.push(turn);
    }
    const drops = turns.flatMap((t) => t.drops);
    expect(drops.length).toBeGreaterThan(0);
    for (const t of turns) {
      for (const s of t.steps) expect(s.stats.promptTokens + 64).toBeLessThanOrEqual(WINDOW);
      expect(t.finish.contextTokens).toBeLessThanOrEqual(WINDOW);
    }
    for (const d of drops) {
      // Whole exchanges: the first dropped message is a question and the first one kept after them is one too.
      expect(d.messages[0]!.role).toBe('user');
      expect(history[d.dropped.to]!.role).toBe('user');
      expect(d.tokensAfter).toBeLessThan(d.tokensBefore);
      // Down to 60% of the room a prompt may use, so the next turns do not drop again at once.
      expect(d.tokensAfter).toBeLessThanOrEqual(0.6 * (WINDOW - 64 - 4) + 20);
    }
    // After a drop the next turn prefills only what was appended: its first step reuses the kept prefix.
    const dropTurn = turns.findIndex((t) => t.drops.length > 0);
    const next = turns.slice(dropTurn + 1).find((t) => t.drops.length === 0)!;
    expect(next.steps[0]!.stats.reusedTokens).toBeGreaterThan(next.steps[0]!.stats.promptTokens / 2);
    expect(next.steps[0]!.stats.prefilledTokens).toBeLessThan(40);
    // The model sees the system block, then the first kept question.
    const last = turns.at(-1)!;
    const prompt = last.steps[0]!.prompt.text;
    expect(prompt).not.toContain('Weather in Paris?');
    expect(prompt).toContain(`Weather in ${CITIES.at(-1)}?`);
    expect(last.finish.dropped.from).toBe(0);
    expect(last.finish.dropped.to).toBeGreaterThan(0);
  });

  it('the dropped range is what the policy plans for the whole transcript (the same for a later run)', async () => {
    let history: Message[] = [];
    for (const city of CITIES.slice(0, 6)) history = (await ask(history, city)).finish.messages;
    const again = await ask(history.slice(0, -4), CITIES[5]!);
    const first = await ask(history.slice(0, -8), CITIES[4]!);
    expect(again.finish.messages).toEqual(history);
    expect(first.finish.dropped.to).toBeLessThanOrEqual(again.finish.dropped.to);
  });

  it('keep-first: the first question stays in the context', async () => {
    let history: Message[] = [];
    let last;
    for (const city of CITIES.slice(0, 7)) {
      last = await ask(history, city, 'keep-first');
      history = last.finish.messages;
    }
    expect(last!.finish.dropped.from).toBe(1);
    const prompt = last!.steps[0]!.prompt.text;
    expect(prompt).toContain('Weather in Paris?');
    expect(prompt).not.toContain('Weather in Oslo?');
  });

  it('stop: the turn ends with a context_overflow error that names the policy and the sizes', async () => {
    let history: Message[] = [];
    let turn;
    for (const city of CITIES) {
      turn = await ask(history, city, 'stop');
      if (turn.finish.reason !== 'done') break;
      history = turn.finish.messages;
    }
    expect(turn!.finish.reason).toBe('error');
    const error = ofType(turn!.events, 'error')[0]!.error;
    expect(error).toMatchObject({ code: 'context_overflow', message: expect.stringMatching(/the window is 400\); the context policy is "stop", so nothing is dropped/) });
    expect(turn!.drops).toEqual([]);
  });

  it('nothing left to drop, but a shorter step still fits: the step runs shorter instead of failing (the first turn of a long tool list)', async () => {
    const run = (window: number) =>
      collect(
        runAgent({
          engine, tokenizer, tools: [weather], conversation: { date: DATE, messages: [{ role: 'user', content: 'Weather in Paris?' }] },
          model: { ...info, contextWindow: window }, maxTokensPerStep: 64, contextPolicy: 'rolling',
          logitsProcessors: forceSteps(['Sunny.<|eot_id|>'], tokenizer), sampling: { temperature: 0, seed: 1 },
        }),
      );
    const prompt = ofType(await run(4096), 'step-start')[0]!.promptTokens;
    // The full step (64 tokens) does not fit; 36 tokens do.
    const short = await run(prompt + 36);
    expect(ofType(short, 'finish')[0]!.reason, JSON.stringify(ofType(short, 'error'))).toBe('done');
    expect(ofType(short, 'finish')[0]!.text).toBe('Sunny.');
    // Below the least room a step may have, it is the overflow error.
    const full = await run(prompt + 16);
    expect(ofType(full, 'error')[0]!.error).toMatchObject({ code: 'context_overflow' });
  });

  it('a question larger than the window: no policy can make room, and the error says so', async () => {
    const history = (await ask([], 'Paris')).finish.messages;
    const huge = `Weather in ${'very '.repeat(400)}big city?`;
    const events = await collect(
      runAgent({
        engine, tokenizer, tools: [weather], conversation: { date: DATE, messages: [...history, { role: 'user', content: huge }] },
        model: { ...info, contextWindow: WINDOW }, maxTokensPerStep: 64, contextPolicy: 'rolling',
      }),
    );
    expect(ofType(events, 'finish')[0]!.reason).toBe('error');
    expect(ofType(events, 'error')[0]!.error).toMatchObject({ code: 'context_overflow', message: expect.stringMatching(/the last message and what followed it do not fit the context window after dropping 4 earlier messages/) });
  });

  it('without a known window nothing is dropped', async () => {
    let history: Message[] = [];
    for (const city of CITIES.slice(0, 4)) {
      const events = await collect(
        runAgent({ engine, tokenizer, tools: [weather], conversation: { date: DATE, messages: [...history, { role: 'user', content: `Weather in ${city}?` }] }, logitsProcessors: forceSteps([CALL(city), ANSWER(city)], tokenizer), sampling: { temperature: 0, seed: 1 } }),
      );
      const finish = ofType(events, 'finish')[0]!;
      expect(finish.dropped).toEqual({ from: 0, to: 0 });
      expect(ofType(events, 'context-dropped')).toEqual([]);
      expect(ofType(events, 'step-finish')[0]!.prompt.text).toContain('Weather in Paris?');
      history = finish.messages;
    }
  });
});
