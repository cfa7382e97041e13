/**
 * The chat page's Settings → "MCP servers": add the tests' MCP server by URL, see its tools, turn one
 * off, find both kept after a reload, run a call to the server (the model's output forced), remove it.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serveMcpOverHttp, type HttpMcpServer } from '../support/mcp-test-server';
import { startBrowserStack } from './harness';
import { ask, blockOutside, CHAT_TEST_PAGE, forcedIds, loadTinyModel, recordSteps, waitForChatPage } from './pages/ui-support';
import { suiteStack } from './suite-stack';

const stack = suiteStack(startBrowserStack);
let mcp: HttpMcpServer;
let context: BrowserContext;
let page: Page;
let outside: string[];
const logs: string[] = [];

beforeAll(async () => {
  mcp = await serveMcpOverHttp(undefined, { cors: true });
  context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 } });
  outside = await blockOutside(context, [stack.vite.url, new URL(mcp.url).origin]);
  page = await context.newPage();
  page.setDefaultTimeout(60_000);
  page.on('console', (m) => logs.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`[pageerror] ${e.message}`));
  await page.goto(`${stack.vite.url}${CHAT_TEST_PAGE}`);
  await waitForChatPage(page);
}, 120_000);
afterAll(async () => {
  await context?.close();
  await mcp?.close();
});
afterEach(({ task }) => {
  if (task.result?.state === 'fail') console.log(logs.join('\n'));
});

const server = () => page.locator(`.mcp-servers .mcp-server[data-server="${mcp.url}"]`);

describe('Settings → MCP servers', { timeout: 120_000 }, () => {
  it('adds a server by URL, sends its bearer token, and lists its tools, each on', async () => {
    await page.fill('.mcp-servers input[name="mcp-url"]', mcp.url);
    await page.fill('.mcp-servers input[name="mcp-token"]', 'page-token');
    await page.click('.mcp-servers button.mcp-add');
    await server().waitFor();
    expect(await server().getAttribute('data-state')).toBe('connected');
    const tools = await server().locator('input[type="checkbox"]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-tool'), (e as HTMLInputElement).checked]));
    expect(tools).toEqual(expect.arrayContaining([['get_opening_hours', true], ['order_cake', true]]));
    expect(mcp.headers.filter((h) => h['content-type']).every((h) => h.authorization === 'Bearer page-token')).toBe(true);
    expect(await page.locator('.mcp-servers input[name="mcp-token"]').inputValue()).toBe('');
  });

  it('a tool turned off is not offered; a call to one that is on asks first, then runs on the server', async () => {
    await server().locator('input[data-tool="order_cake"]').uncheck();
    await loadTinyModel(page);
    await recordSteps(page);
    const forced = forcedIds('{"name": "get_opening_hours", "parameters": {"day": "Monday"}}<|eot_id|>', 'From 06:30 to 17:30.<|eot_id|>');
    const reason = ask(page, 'When are you open on Monday?', forced);
    const once = page.locator('.confirm-dialog button[data-answer="once"]');
    await once.waitFor({ state: 'visible' });
    expect(await page.locator('.confirm-dialog').innerText()).toContain('get_opening_hours');
    await once.click();
    expect(await reason).toBe('done');
    const card = page.locator('.tool-card[data-tool="get_opening_hours"]').last();
    expect(await card.locator('.tool-status').innerText()).toMatch(/^done/);
    expect(await card.locator('.tool-result').innerText()).toContain('"open": "06:30"');
    const prompt = await page.evaluate(() => window.uiSteps[0]!.prompt.text);
    expect(prompt).toContain('"name": "get_opening_hours"');
    expect(prompt).not.toContain('"name": "order_cake"');
  });

  it('the server and the tool turned off are kept after a reload', async () => {
    await page.reload();
    await waitForChatPage(page);
    await server().waitFor();
    expect(await server().getAttribute('data-state')).toBe('connected');
    expect(await server().locator('input[data-tool="order_cake"]').isChecked()).toBe(false);
    expect(await server().locator('input[data-tool="get_opening_hours"]').isChecked()).toBe(true);
  });

  it('Remove drops the server, also after a reload', async () => {
    await server().locator('button.mcp-remove').click();
    await expect.poll(() => server().count()).toBe(0);
    await page.reload();
    await waitForChatPage(page);
    await page.locator('.mcp-servers .mcp-status').waitFor();
    expect(await server().count()).toBe(0);
    expect(outside).toEqual([]);
  });
});
