/**
 * Plumbing never becomes the answer, in Chromium on the chat page (the tiny model, its side forced):
 * a call the app cannot read, and a Python interpreter that cannot start (its files blocked), each end
 * the turn with the card and the turn saying so in the app's words; the model is not asked again, so
 * the forced "answer" that would repeat the error is never generated. Then that chat in the chat list:
 * searched, exported (JSON and Markdown) and imported back.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startBrowserStack } from './harness';
import { ask, forcedIds, loadTinyModel, openChatPage, recordSteps, screenshot, SCREENSHOTS } from './pages/ui-support';
import { suiteStack } from './suite-stack';

const stack = suiteStack(startBrowserStack);
let context: BrowserContext;
let page: Page;
const logs: string[] = [];
const lastTurn = () => page.locator('.turn').last();
const screenshotPath = async (name: string) => (mkdirSync(SCREENSHOTS, { recursive: true }), join(SCREENSHOTS, `${name}.png`));
const ECHO = 'Sorry, the search failed: could not read the tool call.<|eot_id|>';

beforeAll(async () => {
  context = await stack.browser.newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
  // The interpreter's files never arrive: it cannot start.
  await context.route('**/pyodide/**', (route) => route.abort('blockedbyclient'));
  page = await openChatPage(context, stack.vite.url, logs);
  await page.selectOption('.settings-panel select[name="searchAndMath"]', 'local');
  await loadTinyModel(page);
  await recordSteps(page);
}, 240_000);
afterAll(() => context?.close());
afterEach(({ task }) => {
  if (task.result?.state === 'fail') console.log(logs.join('\n'));
});

it('a call the app cannot read: the card says "could not be read", the turn ends, the model is not asked again', async () => {
  const reason = await ask(page, 'Capital of Japan?', forcedIds('<|python_tag|>brave_search.call(query="capital of Ja<|eom_id|>', ECHO));
  expect(reason, (await lastTurn().textContent()) ?? '').toBe('unreadable_call');
  expect((await page.evaluate(() => window.uiSteps)).length).toBe(1);
  const card = lastTurn().locator('.tool-card');
  expect(await card.getAttribute('data-status')).toBe('unreadable_call');
  expect(await card.locator('.tool-status').innerText()).toBe('could not be read');
  expect(await card.locator('.tool-result').innerText()).toMatch(/The model wrote a tool call this app could not read \(.+\), so nothing was run\./);
  expect(await lastTurn().locator('.turn-note.reason-unreadable_call').innerText()).toBe('The model wrote a tool call this app could not read, so the turn ended here. Regenerate, or rephrase the question.');
  expect(await lastTurn().innerText()).not.toContain('Sorry, the search failed');
  await screenshot(page, 'unreadable-call');
}, 120_000);

it('a Python interpreter that cannot start: the card says "could not run", in the app\'s words, and nothing reaches the model', async () => {
  await page.evaluate(() => (window.uiSteps = []));
  const reason = await ask(page, 'Use Python to add 1 and 2.', forcedIds('<|python_tag|>print(1 + 2)<|eom_id|>', 'The interpreter could not be created.<|eot_id|>'), 180_000);
  expect(reason).toBe('app_failure');
  expect((await page.evaluate(() => window.uiSteps)).length).toBe(1);
  const card = lastTurn().locator('.tool-card[data-tool="code_interpreter"]');
  expect(await card.locator('.tool-status').innerText()).toBe('could not run');
  expect(await card.locator('.tool-result').innerText()).toMatch(/^NOT RUN\s+The Python interpreter could not run the code \(.+\)\.$/i);
  expect(await lastTurn().locator('.turn-note.reason-app_failure').innerText()).toMatch(/^A tool could not run because of a problem in this app/);
  expect(await lastTurn().locator('.prose:not([hidden])').count()).toBe(0);
  // The conversation goes on: what the transcript keeps for the call is the loop's own short text.
  const kept = await page.evaluate(() => window.llamaTest!.page.session.transcript.at(-1));
  expect(kept).toEqual({ role: 'ipython', content: { error: 'not run: the turn was ended' } });
}, 240_000);

it('the chat list is searched by title and text', async () => {
  const search = page.locator('.chat-search');
  await search.fill('add 1 and 2');
  await page.waitForFunction(() => document.querySelectorAll('.chat-list .chat-item').length === 1);
  await search.fill('zebra');
  await page.waitForFunction(() => document.querySelector('.chat-list .hint')?.textContent === 'No chat matches “zebra”.');
  expect(await page.locator('.chat-list .chat-item').count()).toBe(0);
  await search.fill('');
  await page.waitForFunction(() => document.querySelectorAll('.chat-list .chat-item').length === 1);
});

it('a chat exported as JSON is imported back (it renders the same turns), a damaged file is refused saying why; Markdown export', async () => {
  const item = page.locator('.chat-list .chat-item').first();
  const [json] = await Promise.all([page.waitForEvent('download'), item.locator('button.export').click()]);
  const exported = readFileSync((await json.path())!, 'utf8');
  const [md] = await Promise.all([page.waitForEvent('download'), item.locator('button.export-md').click()]);
  expect(md.suggestedFilename()).toMatch(/\.md$/);
  expect(readFileSync((await md.path())!, 'utf8')).toMatch(/^# Capital of Japan\?\n\n\*\*You:\*\* Capital of Japan\?\n/);
  const turnsBefore = await page.locator('.turn .bubble').allInnerTexts();
  await page.locator('.import-file').setInputFiles({ name: 'chat.json', mimeType: 'application/json', buffer: Buffer.from(exported) });
  await page.waitForFunction(() => document.querySelectorAll('.chat-list .chat-item').length === 2);
  expect(await page.locator('.turn .bubble').allInnerTexts()).toEqual(turnsBefore);
  expect(await page.locator('.import-note').isHidden()).toBe(true);
  await page.locator('.import-file').setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"messages": [') });
  await page.waitForFunction(() => !document.querySelector('.import-note')?.hasAttribute('hidden'));
  expect(await page.locator('.import-note').innerText()).toMatch(/^“broken\.json” was not imported: the file is not JSON/);
  expect(await page.locator('.chat-list .chat-item').count()).toBe(2);
  await page.locator('.chats-panel').screenshot({ path: await screenshotPath('chat-list-import') });
});
