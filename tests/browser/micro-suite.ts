/**
 * The micro model, unforced, in headless Chromium (shared by the WASM and the WebGPU tier): the
 * engine worker, the loop on the page, brave_search/wolfram_alpha through the vite proxy against the
 * loopback fake, the code interpreter in its sandbox. The model decides, calls, reads and answers.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { AgentEvent } from '../../src/agent/events';
import { ofType } from '../../src/agent/collect-events';
import { MODELS } from '../../src/engine/models';
import { MICRO_E2E_CASES, MICRO_E2E_RENDER_OPTIONS, type MicroE2eCase } from '../../scripts/micro-llama/e2e-cases';
import { openPage, startProxiedBrowser } from './harness';
import { suiteStack } from './suite-stack';

const MICRO = MODELS.find((m) => m.demo)!;
const byName = (name: string) => MICRO_E2E_CASES.find((c) => c.name === name)!;

export const stack = suiteStack(startProxiedBrowser);

function answerWith(c: MicroE2eCase): void {
  stack.fake.braveAnswer = (q) => (typeof c.result === 'object' && c.result && q === c.call?.arguments.query ? (c.result.results as never) : undefined);
  stack.fake.wolframAnswer = (input) => (typeof c.result === 'string' && input === c.call?.arguments.query ? c.result : undefined);
}

export async function microPage(device: 'wasm' | 'webgpu'): Promise<{ page: Page; logs: string[] }> {
  const opened = await openPage(stack.browser, `${stack.vite.url}/tests/browser/pages/micro.html`);
  await opened.page.waitForFunction(() => window.ready === true);
  await opened.page.evaluate(({ id, device }) => window.engine.load(id, { device }).then(() => undefined), { id: MICRO.id, device });
  return opened;
}

/** Asks the case's question on the page (the fake answers it) and checks the full loop; prints the page's log on failure. */
export async function askAndCheck({ page, logs }: { page: Page; logs: string[] }, name: string): Promise<void> {
  const c = byName(name);
  answerWith(c);
  try {
    expectFullLoop(await page.evaluate(({ q, date }) => window.ask(q, date), { q: c.question, date: MICRO_E2E_RENDER_OPTIONS.date as string }), c);
  } catch (e) {
    console.log(logs.join('\n'));
    throw e;
  }
}

function expectFullLoop(events: AgentEvent[], c: MicroE2eCase): void {
  expect(ofType(events, 'tool-call').map((e) => e.call)).toEqual([c.call]);
  expect(ofType(events, 'step-finish').map((s) => s.stop)).toEqual(['eom', 'eot']);
  expect(ofType(events, 'tool-result')[0]!.isError).toBe(false);
  const finish = ofType(events, 'finish')[0]!;
  expect(finish.reason).toBe('done');
  for (const part of c.answerContains) expect(finish.text).toContain(part);
}

