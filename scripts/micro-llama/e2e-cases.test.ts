import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeEngine } from '../../worker/create-node-engine';
import type { Engine } from '../../worker/engine';
import { parseEmitted } from '../../src/format/parse';
import { renderIds } from '../../src/format/render';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import type { Message } from '../../src/format/types';
import { buildMicroModel } from '../setup/micro-model';
import { MICRO_E2E_CASES, MICRO_E2E_RENDER_OPTIONS, type MicroE2eCase } from './e2e-cases';
import { MICRO_MODEL_ID, microModelEntry } from './evaluate';

const tokenizer = loadTokenizer();
let engine: Engine;

beforeAll(async () => {
  await buildMicroModel();
  engine = createNodeEngine([microModelEntry()]);
  await engine.load(MICRO_MODEL_ID);
});

afterAll(async () => {
  await engine?.unload();
});

/** One greedy generation of the next assistant message, parsed; the message is appended as the loop would. */
async function step(messages: Message[]) {
  const r = await engine.generate({ tokens: renderIds({ ...MICRO_E2E_RENDER_OPTIONS, messages }, tokenizer), sampling: { temperature: 0 }, maxTokens: 96 });
  const stop = r.stop === 'eom' ? 'eom' : 'eot';
  const parsed = parseEmitted(r.tokens, stop, tokenizer);
  messages.push({ role: 'assistant', content: '', raw: tokenizer.decode(r.tokens), ids: r.tokens, stop, toolCalls: parsed.toolCalls });
  return { ...parsed, stop: r.stop };
}

describe('micro model end-to-end cases (greedy, unforced)', () => {
  it.each(MICRO_E2E_CASES.map((c) => [c.name, c] as const))('%s', async (_, c: MicroE2eCase) => {
    const messages: Message[] = [{ role: 'user', content: c.question }];
    let answer = await step(messages);
    if (c.call) {
      expect(answer.toolCalls).toEqual([c.call]);
      expect(answer.stop).toBe('eom');
      messages.push({ role: 'ipython', content: c.result ?? '' });
      answer = await step(messages);
    }
    expect(answer.toolCalls).toEqual([]);
    expect(answer.stop).toBe('eot');
    expect(answer.content.trim()).not.toBe('');
    for (const v of c.answerContains) expect(answer.content).toContain(v);
  });
});
