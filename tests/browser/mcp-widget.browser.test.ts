/**
 * `<llama-chat>` with tools from outside: the host page's WebMCP tools (registered through
 * @mcp-b/webmcp-polyfill) and an MCP server named by the `mcp-servers` attribute (the tests' SDK
 * server, over Streamable HTTP from the page). The widget is the library build, served from a second
 * origin as in widget.browser.test.ts; the model is the micro model on WASM.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { widgetBuildConfig } from '../../vite.widget.config';
import { BAKERY_HOURS, serveMcpOverHttp, type HttpMcpServer } from '../support/mcp-test-server';
import { launchBrowser, ROOT } from './harness';
import type { TestLlamaChatElement } from './hooks/widget-test-entry';
import { blockOutside, forcedIds, startStaticServer, type StaticServer } from './pages/ui-support';

const outDir = mkdtempSync(join(tmpdir(), 'llama-widget-mcp-build-'));
let widgetOrigin: StaticServer;
let hostOrigin: StaticServer;
let mcp: HttpMcpServer;
let browser: Browser;
let page: Page;
let outside: string[];
const logs: string[] = [];

/** The host: the polyfill, the widget (its test build: micro model, WebMCP on, our MCP server), three WebMCP tools. */
function hostPage(): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>host</title></head><body>
<script src="/polyfill/index.iife.js"></script>
<llama-chat webmcp tools="none" model="micro-llama" device="wasm" mcp-servers="${mcp.url}"></llama-chat>
<script type="module" src="${widgetOrigin.url}/llama-chat.js"></script>
<script type="module">
  window.hostCalls = [];
  const order = new AbortController();
  const mc = document.modelContext;
  await mc.registerTool({ name: 'get_stock', description: 'Bread in stock', inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true }, execute: () => { hostCalls.push('get_stock'); return { loaves: 3 }; } });
  await mc.registerTool({ name: 'place_order', description: 'Orders bread for pickup',
    inputSchema: { type: 'object', properties: { loaves: { type: 'integer' } }, required: ['loaves'] },
    execute: ({ loaves }) => { hostCalls.push('place_order ' + loaves); return 'ordered ' + loaves; } }, { signal: order.signal });
  await mc.registerTool({ name: 'sell_out', description: 'Stops taking orders', inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true }, execute: () => { hostCalls.push('sell_out'); order.abort(); return 'no more orders'; } });
  window.hostReady = true;
</script></body></html>`;
}

/**
 * In a new chat (the micro model's 1,024-token context holds one turn with these tools), forces the
 * next run's steps and sends `question` through the widget's box; resolves to the answer, the run's
 * tool results and its steps' prompts.
 */
async function askForced(p: Page, question: string, ...steps: string[]) {
  await p.evaluate(() => document.querySelector('llama-chat')!.clear());
  const done = p.evaluate(
    (ids) =>
      new Promise<{ text: string; reason: string; results: Array<{ name: string; content: string; isError: boolean }>; prompts: string[] }>((resolve) => {
        const chat = document.querySelector('llama-chat') as TestLlamaChatElement;
        const results: Array<{ name: string; content: string; isError: boolean }> = [];
        const prompts: string[] = [];
        const onEvent = (e: Event) => {
          const ev = (e as CustomEvent).detail.event;
          if (ev.type === 'tool-result') results.push({ name: ev.name, content: ev.content, isError: ev.isError });
          if (ev.type === 'step-finish') prompts.push(ev.prompt.text);
        };
        chat.addEventListener('llama-agent-event', onEvent);
        chat.addEventListener('llama-answer', (e) => (chat.removeEventListener('llama-agent-event', onEvent), resolve({ ...(e as CustomEvent).detail, results, prompts })), { once: true });
        void chat.forceNextRun(ids);
      }),
    forcedIds(...steps),
  );
  await p.locator('llama-chat .composer-input').fill(question);
  await p.locator('llama-chat .composer-input').press('Enter');
  return done;
}

beforeAll(async () => {
  // The test entry: the product element on the test engine worker (forced runs).
  await build({ ...widgetBuildConfig({ outDir, copyAssets: false, entry: join(ROOT, 'tests/browser/hooks/widget-test-entry.ts') }), logLevel: 'error' });
  mcp = await serveMcpOverHttp(undefined, { cors: true });
  widgetOrigin = await startStaticServer({ cors: true, mounts: [['/models/', join(ROOT, 'models')], ['/ort/', join(ROOT, 'public/ort')], ['/', outDir]] });
  hostOrigin = await startStaticServer({ mounts: [['/polyfill/', join(ROOT, 'node_modules/@mcp-b/webmcp-polyfill/dist')]], pages: { '/': hostPage } });
  browser = await launchBrowser();
  const context = await browser.newContext();
  outside = await blockOutside(context, [hostOrigin.url, widgetOrigin.url, new URL(mcp.url).origin]);
  page = await context.newPage();
  page.setDefaultTimeout(60_000);
  page.on('console', (m) => logs.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`[pageerror] ${e.message}`));
  await page.goto(`${hostOrigin.url}/`);
  await page.waitForFunction(() => (window as unknown as { hostReady?: boolean }).hostReady === true && customElements.get('llama-chat') !== undefined);
  await page.evaluate(() => document.querySelector('llama-chat')!.load());
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await widgetOrigin?.close();
  await hostOrigin?.close();
  await mcp?.close();
  rmSync(outDir, { recursive: true, force: true });
});
afterEach(({ task }) => {
  if (task.result?.state === 'fail') console.log(logs.join('\n'));
});

const hostCalls = () => page.evaluate(() => (window as unknown as { hostCalls: string[] }).hostCalls);

describe('<llama-chat> with WebMCP and MCP tools', () => {
  it("runs the host's read-only WebMCP tool without asking, and the host sees the call", async () => {
    const out = await askForced(page, 'How much bread is left?', '{"name": "get_stock", "parameters": {}}<|eot_id|>', 'Three loaves.<|eot_id|>');
    expect(out).toMatchObject({ text: 'Three loaves.', reason: 'done', results: [{ name: 'get_stock', content: '{"loaves": 3}', isError: false }] });
    expect(await hostCalls()).toEqual(['get_stock']);
    expect(await page.locator('llama-chat .confirm-dialog[open]').count()).toBe(0);
  }, 120_000);

  it('asks through the confirmation dialog before a WebMCP tool that is not read-only', async () => {
    const out = askForced(page, 'Order two loaves.', '{"name": "place_order", "parameters": {"loaves": 2}}<|eot_id|>', 'Ordered.<|eot_id|>');
    const dialog = page.locator('llama-chat .confirm-dialog');
    await dialog.locator('button[data-answer="once"]').waitFor({ state: 'visible' });
    expect(await dialog.innerText()).toContain('place_order');
    expect(await hostCalls()).toEqual(['get_stock']);
    await dialog.locator('button[data-answer="once"]').click();
    expect(await out).toMatchObject({ reason: 'done', results: [{ name: 'place_order', content: 'ordered 2', isError: false }] });
    expect(await hostCalls()).toEqual(['get_stock', 'place_order 2']);
  }, 120_000);

  it('a WebMCP tool the host unregisters mid-run is gone from the next step\'s prompt', async () => {
    const out = await askForced(page, 'Stop the orders.', '{"name": "sell_out", "parameters": {}}<|eot_id|>', 'Sold out.<|eot_id|>');
    expect(out.results).toEqual([{ name: 'sell_out', content: 'no more orders', isError: false }]);
    expect(out.prompts[0]).toContain('"name": "place_order"');
    expect(out.prompts[1]).not.toContain('"name": "place_order"');
    expect(out.prompts[1]).toContain('"name": "sell_out"');
  }, 120_000);

  it('lists the MCP server among the sources the host CSP must allow to connect to', async () => {
    const csp = await page.evaluate(() => document.querySelector('llama-chat')!.cspSources());
    expect(csp['connect-src']).toContain(new URL(mcp.url).origin);
  });

  it('the micro model, unforced, answers "When are you open on Monday?" from the MCP server named by mcp-servers', async () => {
    await page.evaluate(() => {
      const chat = document.querySelector('llama-chat')!;
      chat.removeAttribute('webmcp');
      chat.clear();
    });
    const answered = page.evaluate(
      () =>
        new Promise<{ text: string; reason: string; calls: string[]; results: string[] }>((resolve) => {
          const chat = document.querySelector('llama-chat')!;
          const calls: string[] = [];
          const results: string[] = [];
          chat.addEventListener('llama-agent-event', (e) => {
            const ev = (e as CustomEvent).detail.event;
            if (ev.type === 'tool-call') calls.push(JSON.stringify(ev.call));
            if (ev.type === 'tool-result') results.push(ev.content);
          });
          chat.addEventListener('llama-answer', (e) => resolve({ ...(e as CustomEvent).detail, calls, results }), { once: true });
        }),
    );
    // A fixed day whose number is no prefix of the hours: the micro model copies from its context, the date line included.
    await page.clock.setFixedTime(new Date('2026-03-21T10:00:00'));
    await page.locator('llama-chat .composer-input').fill('When are you open on Monday?');
    await page.locator('llama-chat .composer-input').press('Enter');
    // The server's tools ask first (the host did not allow read-only MCP tools to run unasked).
    const dialog = page.locator('llama-chat .confirm-dialog');
    await dialog.locator('button[data-answer="once"]').waitFor({ state: 'visible', timeout: 120_000 });
    expect(await dialog.innerText()).toContain('get_opening_hours');
    await dialog.locator('button[data-answer="once"]').click();
    const out = await answered;
    const monday = BAKERY_HOURS.Monday!;
    expect(out.calls).toEqual([JSON.stringify({ kind: 'custom', name: 'get_opening_hours', arguments: { day: 'Monday' } })]);
    expect(out.results).toEqual([`{"day": "Monday", "open": "${monday.open}", "close": "${monday.close}"}`]);
    expect(out.reason).toBe('done');
    expect(out.text).toContain(monday.open);
    expect(out.text).toContain(monday.close);
    expect(mcp.headers.length).toBeGreaterThan(0);
    expect(outside).toEqual([]);
  }, 180_000);
  it('addMcpServer connects a server the host names, with its prefix; a URL that is not http(s) is refused', async () => {
    const added = await page.evaluate((url) => document.querySelector('llama-chat')!.addMcpServer(url, { prefix: 'bakery' }), mcp.url);
    expect(added).toMatchObject({ server: mcp.url, state: 'connected' });
    expect(added.tools).toEqual(expect.arrayContaining(['bakery_get_opening_hours', 'bakery_order_cake']));
    const refused = await page.evaluate(() => document.querySelector('llama-chat')!.addMcpServer('javascript:alert(1)').then(() => 'added', (e: Error) => e.message));
    expect(refused).toBe('an MCP server URL must be http or https, got javascript:');
    const again = await page.evaluate((url) => document.querySelector('llama-chat')!.addMcpServer(url).then(() => 'added', (e: Error) => e.message), mcp.url);
    expect(again).toBe(`the MCP server ${mcp.url} is already added`);
  });

});
