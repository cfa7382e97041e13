/**
 * The page and the widget on an engine server: a real llama-server (the micro model's GGUF) behind
 * the vite dev server's /api/engine/ (LLAMA_ENGINE_URL points at it for this file). The chat page's
 * "A server…" tests the connection (what the server serves), refuses a URL with credentials, says
 * in words when a URL is no engine server, loads it and runs a tool loop the server generates. The
 * widget with an `engine-url` loads it and answers. Nothing leaves the page's origin: the dev
 * server's proxy is the only way to the engine.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MICRO_E2E_CASES } from '../../scripts/micro-llama/e2e-cases';
import { startLlamaServer, type LlamaServer } from '../support/llama-server';
import { startProxiedBrowser } from './harness';
import { blockOutside, screenshot, waitForChatPage } from './pages/ui-support';
import { suiteStack } from './suite-stack';

let llama: LlamaServer;
const savedEngineUrl = process.env.LLAMA_ENGINE_URL;
beforeAll(async () => {
  llama = await startLlamaServer();
  process.env.LLAMA_ENGINE_URL = llama.url; // the dev server's engine proxy reads it per request
});
afterAll(async () => {
  if (savedEngineUrl === undefined) delete process.env.LLAMA_ENGINE_URL;
  else process.env.LLAMA_ENGINE_URL = savedEngineUrl;
  await llama?.stop();
});

const stack = suiteStack(startProxiedBrowser);
const oslo = MICRO_E2E_CASES.find((c) => c.name === 'population (brave_search)')!;
let context: BrowserContext;
let page: Page;
let outside: string[];
const logs: string[] = [];

beforeAll(async () => {
  stack.fake.braveAnswer = (q) => (q === oslo.call!.arguments.query ? ((oslo.result as { results: never }).results) : undefined);
  context = await stack.browser.newContext();
  outside = await blockOutside(context, [stack.vite.url]);
  // The micro model is greedy; on a server the page's own sampling settings apply.
  await context.addInitScript(() => localStorage.setItem('llama-agent:settings', JSON.stringify({ temperature: 0, tools: { code_interpreter: false, brave_search: true, wolfram_alpha: true } })));
  page = await context.newPage();
  page.setDefaultTimeout(60_000);
  page.on('console', (m) => logs.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`[pageerror] ${e.message}`));
}, 120_000);
afterAll(() => context?.close());
afterEach(({ task }) => {
  if (task.result?.state === 'fail') console.log(logs.join('\n'));
});

const picker = () => page.locator('.server-picker');
const status = () => picker().locator('.server-status');

describe('the chat page on an engine server', { timeout: 120_000 }, () => {
  it('"A server…" tests the connection: what the server at /api/engine/ serves', async () => {
    await page.goto(`${stack.vite.url}/`);
    await waitForChatPage(page);
    await picker().locator('summary').click();
    expect(await picker().locator('.engine-url').inputValue()).toBe('/api/engine/');
    await picker().locator('button.test-connection').click();
    const info = status().locator('.server-info');
    await info.waitFor();
    expect(await info.innerText()).toBe('✓ llama.cpp server · serves micro-llama-f32.gguf · 1,024-token context');
    await screenshot(page, 'server-picker');
  });

  it('refuses a URL with credentials before sending anything; a URL that is no engine server is said in words', async () => {
    await picker().locator('.engine-url').fill('http://me:sk-secret@127.0.0.1:9/');
    await picker().locator('button.test-connection').click();
    expect(await status().locator('.server-error').innerText()).toMatch(/must not carry a user name or password/);
    await picker().locator('.engine-url').fill('/not-an-engine/');
    await picker().locator('button.test-connection').click();
    const error = status().locator('.error-box');
    await error.waitFor();
    expect(await error.getAttribute('data-code')).toBe('server_error');
    expect(await error.innerText()).toMatch(/The engine server answered with an error/);
  });

  it('loads the server and runs a tool loop it generates: the call, the confirmation, the answer from the result', async () => {
    await picker().locator('.engine-url').fill('/api/engine/');
    await picker().locator('button.load-server').click();
    await page.waitForSelector('.model-panel[data-loaded="micro-llama-f32.gguf"]');
    expect(await page.locator('.model-pill').innerText()).toMatch(/^micro-llama-f32\.gguf · llama\.cpp at http:\/\/127\.0\.0\.1:\d+\/api\/engine\/$/);
    await page.fill('.composer-input', oslo.question);
    await page.press('.composer-input', 'Enter');
    const dialog = page.locator('dialog.confirm-dialog');
    await dialog.waitFor({ state: 'visible' });
    expect(await dialog.innerText()).toContain(String(oslo.call!.arguments.query));
    await dialog.locator('button[data-answer="once"]').click();
    await page.waitForFunction(() => document.querySelector('.turn:last-of-type')?.getAttribute('data-reason') === 'done');
    const turn = page.locator('.turn').last();
    expect(await turn.locator('.tool-card[data-tool="brave_search"] .tool-result').innerText()).toContain('634,293');
    expect(await turn.locator('.prose:not([hidden])').last().innerText()).toContain('634,293');
    expect(outside).toEqual([]);
    await screenshot(page, 'server-answer');
  });
});

describe('the widget with an engine-url', { timeout: 120_000 }, () => {
  it('loads the server through the page’s /api/engine/, answers, and names that origin for the host’s connect-src', async () => {
    const widget = await context.newPage();
    widget.on('pageerror', (e) => logs.push(`[widget pageerror] ${e.message}`));
    await widget.goto(`${stack.vite.url}/tests/browser/pages/widget-engine.html`);
    const result = await widget.evaluate(async () => {
      const chat = document.querySelector('llama-chat')!;
      const info = await chat.load();
      const answer = new Promise<{ text: string; reason: string }>((resolve) => chat.addEventListener('llama-answer', (e) => resolve((e as CustomEvent).detail), { once: true }));
      await chat.send('Hello!');
      return { info, answer: await answer, roles: chat.messages.map((m) => m.role), csp: (await chat.cspSources())['connect-src'] };
    });
    expect(result.info).toMatchObject({ modelId: 'micro-llama-f32.gguf', backend: 'remote', device: `llama.cpp at ${stack.vite.url}/api/engine/` });
    expect(result.roles).toEqual(['user', 'assistant']);
    expect(result.answer.text.length).toBeGreaterThan(0);
    expect(['done', 'length']).toContain(result.answer.reason);
    expect(result.csp).toContain(stack.vite.url);
    expect(outside).toEqual([]);
    await widget.close();
  });
});
