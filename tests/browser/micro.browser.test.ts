/** The micro model, unforced, on WASM through the engine worker (see micro-suite.ts). */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events';
import { ofType } from '../../src/agent/collect-events';
import { MICRO_E2E_RENDER_OPTIONS } from '../../scripts/micro-llama/e2e-cases';
import { OFFLINE_CASES, OFFLINE_DATE } from '../../scripts/micro-llama/offline-cases';
import { askAndCheck, microPage } from './micro-suite';

describe('WASM', () => {
  let opened: { page: Page; logs: string[] };
  beforeAll(async () => void (opened = await microPage('wasm')), 300_000);
  afterAll(() => opened?.page.close());

  for (const name of ['population (brave_search)', 'arithmetic (wolfram_alpha)', 'sum (code_interpreter)']) {
    it(name, () => askAndCheck(opened, name), 120_000);
  }

  // The offline demo's topics: no proxy asked (the page's own local index, mathjs, the sandbox, a host
  // tool), every request of the page watched; the model decides, calls, reads and answers.
  for (const { name, question, tools, tool, answer } of OFFLINE_CASES) {
    it(`offline: ${name}, unforced`, async () => {
      const asked: string[] = [];
      const watch = (r: { url(): string }) => void (r.url().includes('/api/') && asked.push(r.url()));
      opened.page.on('request', watch);
      const events: AgentEvent[] = await opened.page.evaluate(({ q, date, tools }) => window.ask(q, date, tools), { q: question, date: OFFLINE_DATE, tools });
      opened.page.off('request', watch);
      expect(ofType(events, 'tool-call').map((e) => e.call.name)).toEqual(tool === null ? [] : [tool]);
      for (const r of ofType(events, 'tool-result')) expect(r.isError, r.content).toBe(false);
      const content = ofType(events, 'tool-result')[0]?.content ?? '';
      if (tool === 'brave_search') expect(content).toMatch(/^\{"query": ".*", "source": "local index", "results": \[/);
      if (tool === 'wolfram_alpha') expect(content).toMatch(/^Query:\n"[^"]+"\n\nInput:\n.*\n\nResult:\n/);
      const finish = ofType(events, 'finish')[0]!;
      expect(finish.reason).toBe('done');
      expect(finish.text.trim()).not.toBe('');
      for (const v of answer()) expect(finish.text).toContain(v);
      expect(asked).toEqual([]);
    }, 120_000);
  }
});

