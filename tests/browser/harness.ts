/**
 * Browser test plumbing: a vite server for the project (the real module worker, transformed by
 * vite) and Debian's Chromium driven by playwright-core, with WebGPU on the software adapter.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { startBraveWolframFake, type BraveWolframFake } from '../fakes/brave-wolfram-fake';

export const ROOT = join(import.meta.dirname, '../..');

/** Flags that work on this machine class (no sandbox as root, no background network, WebGPU on). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--enable-unsafe-webgpu',
];

export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(path)) throw new Error(`Chromium not found at ${path}: apt-get install chromium (or set CHROMIUM_PATH)`);
  return path;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS, headless: true });
}

export async function startVite(port = 0): Promise<{ server: ViteDevServer; url: string }> {
  const server = await createServer({
    root: ROOT,
    configFile: join(ROOT, 'vite.config.ts'),
    logLevel: 'error',
    server: { host: '127.0.0.1', port, strictPort: false, hmr: false },
  });
  await server.listen();
  const address = server.httpServer!.address();
  if (!address || typeof address === 'string') throw new Error('vite did not bind a port');
  return { server, url: `http://127.0.0.1:${address.port}` };
}

/**
 * Opens a page and keeps its console and errors, printed when a test fails. `headers` are added to
 * the page's own response (e.g. a Content-Security-Policy the dev server does not send).
 */
export async function openPage(browser: Browser, url: string, headers?: Record<string, string>): Promise<{ page: Page; logs: string[] }> {
  const page = await browser.newPage();
  if (headers) {
    await page.route(url, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, headers: { ...response.headers(), ...headers } });
    });
  }
  const logs: string[] = [];
  page.on('console', (m) => logs.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`[pageerror] ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 400) logs.push(`[http ${r.status()}] ${r.url()}`);
  });
  await page.goto(url);
  return { page, logs };
}

const PROXY_ENV = ['BRAVE_API_KEY', 'BRAVE_API_BASE', 'WOLFRAM_APP_ID', 'WOLFRAM_API_BASE'] as const;

/**
 * Points the vite server's tool proxy (it reads these variables at request time) at the loopback
 * fake, with the fake's keys. Returns the function that restores the environment.
 */
function pointToolProxyAt(fake: { braveKey: string; braveBase: string; wolframAppId: string; wolframBase: string }): () => void {
  const saved = Object.fromEntries(PROXY_ENV.map((k) => [k, process.env[k]]));
  Object.assign(process.env, { BRAVE_API_KEY: fake.braveKey, BRAVE_API_BASE: fake.braveBase, WOLFRAM_APP_ID: fake.wolframAppId, WOLFRAM_API_BASE: fake.wolframBase });
  return () => {
    for (const k of PROXY_ENV) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  };
}

/** vite and Chromium; `close` undoes both, and a half-started pair is undone before the error is thrown. */
export interface BrowserStack {
  vite: Awaited<ReturnType<typeof startVite>>;
  browser: Browser;
  close(): Promise<void>;
}

export async function startBrowserStack(): Promise<BrowserStack> {
  let vite: BrowserStack['vite'] | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await vite?.server.close();
  };
  try {
    vite = await startVite();
    browser = await launchBrowser();
  } catch (error) {
    await close();
    throw error;
  }
  return { vite, browser, close };
}

/** Chromium and vite, vite's tool proxy pointed at a fresh loopback fake; `close` undoes all of it. */
export interface ProxiedBrowser extends BrowserStack {
  fake: BraveWolframFake;
}

export async function startProxiedBrowser(): Promise<ProxiedBrowser> {
  const fake = await startBraveWolframFake();
  const restoreEnv = pointToolProxyAt(fake);
  const undoFake = async () => {
    await fake.close();
    restoreEnv();
  };
  const stack = await startBrowserStack().catch(async (error: unknown) => {
    await undoFake();
    throw error;
  });
  const close = async () => {
    await stack.close();
    await undoFake();
  };
  return { ...stack, fake, close };
}
