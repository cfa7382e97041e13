/**
 * The offline demo as shipped: a production build of the page (`npm run build`) on the preview
 * server (`npm run preview`, which also serves models/), the tiny model under models/ and Pyodide
 * under public/, every request that leaves the page's origin blocked and recorded. A conversation
 * with the code interpreter must complete, and one with search and math answered in the page (no keys on
 * the server: the local index and mathjs), and none may have attempted an outside request. A final self-check
 * proves the recorder does see outside requests made by the page and by its workers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { build, preview, type PreviewServer } from 'vite';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { launchBrowser, ROOT } from './harness';
import { ask, blockOutside, CHAT_TEST_PAGE, forcedIds, loadTinyModel, screenshot, waitForChatPage } from './pages/ui-support';

let browser: Browser;
let context: BrowserContext;
let page: Page;
let server: PreviewServer;
let origin: string;
let outside: string[];
const logs: string[] = [];
const outDir = mkdtempSync(join(tmpdir(), 'llama-offline-build-'));

beforeAll(async () => {
  // The demo as a newcomer has it: no service keys (the tool proxy then says "not configured").
  delete process.env.BRAVE_API_KEY;
  delete process.env.WOLFRAM_APP_ID;
  const configFile = join(ROOT, 'vite.config.ts');
  const t0 = performance.now();
  // The product page plus its test entry (the same page on the test engine worker, with window.llamaTest).
  const input = { main: join(ROOT, 'index.html'), test: join(ROOT, CHAT_TEST_PAGE) };
  await build({ root: ROOT, configFile, logLevel: 'error', build: { outDir, emptyOutDir: true, reportCompressedSize: false, rolldownOptions: { input } } });
  console.log(`offline demo: production build in ${Math.round(performance.now() - t0)} ms`);
  server = await preview({ root: ROOT, configFile, logLevel: 'error', build: { outDir }, preview: { host: '127.0.0.1', port: 0, open: false } });
  origin = `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}`;
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  outside = await blockOutside(context, [origin]);
  page = await context.newPage();
  page.setDefaultTimeout(60_000); // two shared cores: be patient with a busy machine
  page.on('console', (m) => logs.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`[pageerror] ${e.message}`));
  await page.goto(`${origin}${CHAT_TEST_PAGE}?model=tiny-llama`);
  await waitForChatPage(page);
}, 180_000);
/** Counts the times the confirmation dialog opens from now on. */
async function countDialogOpens(p: Page): Promise<() => Promise<number>> {
  await p.evaluate(() => {
    const dialog = document.querySelector('dialog.confirm-dialog') as HTMLDialogElement;
    const w = window as unknown as { dialogOpens: number };
    w.dialogOpens = 0;
    new MutationObserver(() => void (dialog.open && w.dialogOpens++)).observe(dialog, { attributes: true, attributeFilter: ['open'] });
  });
  return () => p.evaluate(() => (window as unknown as { dialogOpens: number }).dialogOpens);
}

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(outDir, { recursive: true, force: true });
});
afterEach(({ task }) => {
  if (task.result?.state === 'fail') console.log(logs.join('\n'));
});

it('completes a conversation with the code interpreter with the network outside its origin blocked, and attempts no outside request', async () => {
  await loadTinyModel(page);
  const reason = await ask(
    page,
    'What is the sum of the numbers from 0 to 9?',
    forcedIds('<|python_tag|>print(sum(range(10)))<|eom_id|>', 'The sum is **45**.<|eot_id|>'),
    90_000,
  );
  expect(reason).toBe('done');
  const turn = page.locator('.turn').last();
  expect(await turn.locator('.tool-card[data-tool="code_interpreter"] [data-section="stdout"] pre').evaluate((el) => el.textContent)).toBe('45\n');
  expect((await turn.locator('.prose:not([hidden])').innerText()).trim()).toBe('The sum is 45.');
  expect(outside).toEqual([]);
}, 120_000);

it('with no keys on the server, search and math are answered in the page (local index, mathjs), and nothing leaves it', async () => {
  await page.evaluate(
    (ids) => window.llamaTest!.forceNextRun(ids),
    forcedIds(
      '<|python_tag|>brave_search.call(query="capital of Japan")<|eom_id|>',
      '<|python_tag|>wolfram_alpha.call(query="derivative of x^3")<|eom_id|>',
      'Tokyo; and 3 x^2.<|eot_id|>',
    ),
  );
  const opened = await countDialogOpens(page);
  await page.fill('.composer-input', 'What is the capital of Japan, and the derivative of x^3?');
  await page.press('.composer-input', 'Enter');
  await page.waitForFunction(() => document.querySelector('.turn:last-of-type')?.getAttribute('data-reason') === 'done', undefined, { timeout: 60_000 });
  // Answered on this device: nothing to consent to, so nothing was asked.
  const turn = page.locator('.turn').last();
  expect(await turn.locator('.tool-card').count()).toBe(2);
  expect(await opened()).toBe(0);
  const search = await turn.locator('.tool-card[data-tool="brave_search"] .tool-result').innerText();
  expect(search).toContain('results from local index');
  expect(search).toContain('The capital of Japan is Tokyo.');
  const math = turn.locator('.tool-card[data-tool="wolfram_alpha"]');
  expect(await math.locator('.tool-result').innerText()).toContain('d/dx(x^3) = 3 x^2');
  // The card names who answered: local math, not the service the tool is named after.
  expect(await math.getAttribute('data-source')).toBe('local math');
  expect(await math.locator('.tool-result .tool-label').first().textContent()).toBe('local math');
  expect(outside).toEqual([]);
}, 120_000);

it('asked to confirm every call, the dialog says a local answer sends nothing', async () => {
  await page.check('.settings-panel input[name="confirmOnDevice"]');
  await page.evaluate(
    (ids) => window.llamaTest!.forceNextRun(ids),
    forcedIds('<|python_tag|>wolfram_alpha.call(query="123 * 45")<|eom_id|>', '5535.<|eot_id|>'),
  );
  await page.fill('.composer-input', 'What is 123 * 45?');
  await page.press('.composer-input', 'Enter');
  const dialog = page.locator('dialog.confirm-dialog');
  await dialog.waitFor({ state: 'visible' });
  expect(await dialog.locator('.destination').innerText()).toBe('Answered on this device — nothing is sent.');
  await screenshot(page, 'consent-local-answer');
  await dialog.locator('button[data-answer="once"]').click();
  await page.waitForFunction(() => document.querySelector('.turn:last-of-type')?.getAttribute('data-reason') === 'done', undefined, { timeout: 60_000 });
  await page.uncheck('.settings-panel input[name="confirmOnDevice"]');
  expect(outside).toEqual([]);
}, 120_000);

it("the user's own files join the local index; with 'This device only' search answers from them without asking", async () => {
  await page.locator('.local-doc-files').setInputFiles([
    { name: 'shop.md', mimeType: 'text/markdown', buffer: Buffer.from('# Harbour shop\n\nThe harbour shop opens at 9:00 and closes at 17:00.') },
    { name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from([137, 80, 78, 71]) },
  ]);
  await page.waitForFunction(() => /^Added 1 file \(skipped 1/.test(document.querySelector('.local-doc-status')?.textContent ?? ''));
  expect(await page.locator('.local-doc-status').textContent()).toMatch(/1 document part of yours in the local index \(kept on this device\)\.$/);
  await page.selectOption('.settings-panel select[name="searchAndMath"]', 'local');
  await page.evaluate(
    (ids) => window.llamaTest!.forceNextRun(ids),
    forcedIds('<|python_tag|>brave_search.call(query="harbour shop opening hours")<|eom_id|>', 'It opens at 9:00.<|eot_id|>'),
  );
  await page.fill('.composer-input', 'When does the harbour shop open?');
  await page.press('.composer-input', 'Enter');
  await page.waitForFunction(() => document.querySelector('.turn:last-of-type')?.getAttribute('data-reason') === 'done', undefined, { timeout: 60_000 });
  expect(await page.locator('dialog.confirm-dialog').isVisible()).toBe(false);
  const card = await page.locator('.turn').last().locator('.tool-card[data-tool="brave_search"] .tool-result').innerText();
  expect(card).toContain('results from local index');
  expect(card).toContain('The harbour shop opens at 9:00 and closes at 17:00.');
  expect(outside).toEqual([]);
}, 120_000);

it("the user's documents are still there after a reload, until 'Forget my documents'", async () => {
  const status = () => page.locator('.local-doc-status').textContent();
  await page.reload();
  await page.waitForFunction(() => /kept on this device from earlier visits/.test(document.querySelector('.local-doc-status')?.textContent ?? ''));
  expect(await status()).toBe('1 document part of yours kept on this device from earlier visits.');
  await page.click('.local-doc-forget');
  await page.waitForFunction(() => /removed from this device/.test(document.querySelector('.local-doc-status')?.textContent ?? ''));
  await page.reload();
  await page.waitForSelector('.local-doc-status');
  expect(await status()).toMatch(/^Search answers from the demo corpus/);
  expect(outside).toEqual([]);
}, 120_000);

it('self-check: the recorder sees outside requests from the page and from a worker', async () => {
  await page.evaluate(async () => {
    await fetch('https://canary.example/page').catch(() => {});
    const source = "fetch('https://canary.example/worker').catch(() => {}).finally(() => postMessage('done'));";
    const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
    await new Promise((resolve) => (worker.onmessage = resolve));
    worker.terminate();
  });
  expect(outside).toEqual(['https://canary.example/page', 'https://canary.example/worker']);
});
