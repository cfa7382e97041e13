/**
 * Support for the product-surface browser tests (ui, offline, widget): where screenshots go, a
 * recorder that blocks and records every request leaving the page's origin, a static server with
 * CORS for serving the widget from a second loopback origin, and the page's test hooks.
 */
import { createReadStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { AgentEvent } from '../../../src/agent/events';
import { scriptIds } from '../../../src/agent/scripted-output';
import { loadTokenizer } from '../../../src/format/tokenizer/load-node';
import { ROOT } from '../harness';

export const SCREENSHOTS = join(ROOT, 'test-results/screenshots');

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/** The chat page's test entry (tests/browser/hooks/chat-test.html): the product page on the test engine, with `window.llamaTest`. */
export const CHAT_TEST_PAGE = '/tests/browser/hooks/chat-test.html';

const tokenizer = loadTokenizer();
/** The ids per step for a forced run (`<|eom_id|>`/`<|eot_id|>` at the end of a step pick its terminator). */
export const forcedIds = (...steps: string[]): number[][] => steps.map((s) => scriptIds(s, tokenizer));

/**
 * Aborts every http(s)/ws(s) request whose origin is not one of `allowed`, and records it (pages,
 * frames and workers of the context go through the route).
 */
export async function blockOutside(context: BrowserContext, allowed: string[]): Promise<string[]> {
  const outside: string[] = [];
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    const { protocol, origin } = new URL(url);
    if (/^(https?|wss?):$/.test(protocol) && !allowed.includes(origin)) {
      outside.push(url);
      await route.abort('blockedbyclient');
    } else await route.fallback();
  });
  return outside;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.zip': 'application/zip',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
};

export interface StaticServer {
  url: string;
  /** Request paths received, in order. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * A static server for loopback tests: `mounts` maps a URL prefix to a folder (first match wins);
 * `pages` maps exact paths to generated HTML, answered with `pageHeaders` (e.g. a Content-Security-Policy).
 * With `cors`, every answer allows any origin.
 */
export async function startStaticServer(options: {
  mounts: Array<[string, string]>;
  pages?: Record<string, () => string>;
  pageHeaders?: Record<string, string>;
  cors?: boolean;
}): Promise<StaticServer> {
  const requests: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(path);
    if (options.cors) res.setHeader('Access-Control-Allow-Origin', '*');
    const page = options.pages?.[path];
    if (page) {
      res.writeHead(200, { ...options.pageHeaders, 'content-type': TYPES['.html']! });
      res.end(page());
      return;
    }
    for (const [prefix, dir] of options.mounts) {
      if (!path.startsWith(prefix)) continue;
      const file = normalize(join(dir, path.slice(prefix.length)));
      if (!file.startsWith(normalize(dir) + sep) || !existsSync(file) || !statSync(file).isFile()) break;
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': statSync(file).size });
      if (req.method === 'HEAD') res.end();
      else createReadStream(file).pipe(res);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Opens the chat page with its test hooks in `context`, its console kept in `logs`, and waits until it is ready. */
export async function openChatPage(context: BrowserContext, origin: string, logs: string[]): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(60_000); // two shared cores: be patient with a busy machine
  page.on('console', (m) => logs.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`[pageerror] ${e.message}`));
  await page.goto(`${origin}${CHAT_TEST_PAGE}`);
  await waitForChatPage(page);
  return page;
}

/** Waits until the page's chat says its capability report is in. */
export async function waitForChatPage(page: Page): Promise<void> {
  await page.waitForSelector('.chat-page[data-ready="true"]', { timeout: 60_000 });
}

/** Picks the tiny model on WASM through the UI and loads it; returns the progress labels seen while loading. */
export async function loadTinyModel(page: Page): Promise<{ labels: string[]; barShown: boolean }> {
  await page.selectOption('.model-select', 'tiny-llama');
  await page.selectOption('.settings-panel select[name="device"]', 'wasm');
  await page.evaluate(() => {
    const w = window as unknown as { progressSeen: { labels: string[]; barShown: boolean } };
    w.progressSeen = { labels: [], barShown: false };
    const box = document.querySelector('.model-panel .load-progress')!;
    new MutationObserver(() => {
      const label = box.querySelector('.progress-label')?.textContent ?? '';
      if (!box.hasAttribute('hidden')) w.progressSeen.barShown = true;
      if (label && w.progressSeen.labels.at(-1) !== label) w.progressSeen.labels.push(label);
    }).observe(box, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  await page.click('.model-panel button.load');
  await page.waitForSelector('.model-panel[data-loaded="tiny-llama"]', { timeout: 120_000 });
  return page.evaluate(() => (window as unknown as { progressSeen: { labels: string[]; barShown: boolean } }).progressSeen);
}

/** Forces the next run, types `text` in the composer and presses Enter; resolves once the turn has ended. */
export async function ask(page: Page, text: string, forced: number[][] | null, timeout = 60_000): Promise<string> {
  if (forced) await page.evaluate((ids) => window.llamaTest!.forceNextRun(ids), forced);
  const before = await page.locator('.turn').count();
  await page.fill('.composer-input', text);
  await page.press('.composer-input', 'Enter');
  const turn = page.locator('.turn').nth(before);
  await turn.waitFor();
  await page.waitForFunction((n) => document.querySelectorAll('.turn')[n]?.hasAttribute('data-reason'), before, { timeout });
  return (await turn.getAttribute('data-reason')) ?? '';
}

export type StepFinish = Extract<AgentEvent, { type: 'step-finish' }>;
declare global {
  interface Window {
    /** Every step the page's session ran since recordSteps(). */
    uiSteps: StepFinish[];
  }
}

/** Starts recording the page session's steps into `window.uiSteps` (again after a reload). */
export function recordSteps(page: Page): Promise<void> {
  return page.evaluate(() => {
    window.uiSteps = [];
    window.llamaTest!.page.session.on((e) => e.type === 'agent' && e.event.type === 'step-finish' && window.uiSteps.push(e.event));
  });
}

/** How much of `prompt` differs from what the engine holds (`cached`): the suffix after their common prefix (at least one id). */
export function divergent(cached: readonly number[], prompt: readonly number[]): number {
  let common = 0;
  while (common < Math.min(cached.length, prompt.length - 1) && cached[common] === prompt[common]) common++;
  return prompt.length - common;
}
