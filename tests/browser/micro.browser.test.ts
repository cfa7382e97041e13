/** The micro model, unforced, on WASM through the engine worker (see micro-suite.ts). */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { askAndCheck, microPage } from './micro-suite';

describe('WASM', () => {
  let opened: { page: Page; logs: string[] };
  beforeAll(async () => void (opened = await microPage('wasm')), 300_000);
  afterAll(() => opened?.page.close());

  for (const name of ['population (brave_search)', 'arithmetic (wolfram_alpha)', 'sum (code_interpreter)']) {
    it(name, () => askAndCheck(opened, name), 120_000);
  }
});

