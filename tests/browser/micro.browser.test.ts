/** The micro model, unforced, on WASM through the engine worker (see micro-suite.ts). */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events';
import { ofType } from '../../src/agent/collect-events';
import { MICRO_E2E_RENDER_OPTIONS } from '../../scripts/micro-llama/e2e-cases';
import { askAndCheck, microPage } from './micro-suite';

describe('WASM', () => {
  let opened: { page: Page; logs: string[] };
  beforeAll(async () => void (opened = await microPage('wasm')), 300_000);
  afterAll(() => opened?.page.close());

  for (const name of ['population (brave_search)', 'arithmetic (wolfram_alpha)', 'sum (code_interpreter)']) {
    it(name, () => askAndCheck(opened, name), 120_000);
  }

  // No proxy asked: the page's own local index and mathjs answer, and the model reads their results.
  const local: Array<[string, string, { name: string; query: string }, RegExp, string]> = [
    ['What is the capital of Japan?', 'capital (local index)', { name: 'brave_search', query: 'capital of Japan' }, /"source": "local index"/, 'Tokyo'],
    ['What is the derivative of x^3?', 'derivative (local math)', { name: 'wolfram_alpha', query: 'derivative of x^3' }, /d\/dx\(x\^3\) = 3 x\^2/, '3 x^2'],
  ];
  for (const [question, name, call, result, answer] of local) {
    it(`${name}, unforced`, async () => {
      const events: AgentEvent[] = await opened.page.evaluate(({ q, date }) => window.ask(q, date, true), { q: question, date: MICRO_E2E_RENDER_OPTIONS.date as string });
      expect(ofType(events, 'tool-call').map((e) => e.call)).toEqual([{ kind: 'builtin', name: call.name, arguments: { query: call.query } }]);
      const toolResult = ofType(events, 'tool-result')[0]!;
      expect([toolResult.isError, result.test(toolResult.content)]).toEqual([false, true]);
      expect(ofType(events, 'finish')[0]!.text).toContain(answer);
    }, 120_000);
  }
});

