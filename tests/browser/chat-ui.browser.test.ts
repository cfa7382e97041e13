/**
 * The chat page at the level of the best chat UIs (issue 15), in headless Chromium with the model's
 * side forced through the test engine worker: tool cards that show failure as failure (a Python
 * error and a denial, forced), search results as sources and Wolfram|Alpha's pods, the repetition
 * guard (forced), highlighted code with Copy, Copy on every message, edit-and-resend and regenerate of
 * any turn with alternatives (only the divergent suffix prefilled), the context meter, the settings
 * that show what runs, the conversation list (rename, export as render/replay input, delete), and a
 * reload mid-conversation that brings back the chat, its tool cards and the model. Then the download
 * confirmation and the diagnosed load errors (unreachable host, offline, CSP) in pages of their own,
 * the first visit on a phone, the inspector's legend, and axe-core on the page.
 * One page for the conversation tests (Pyodide's cold start is seconds); tests run in order.
 */
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { replay } from '../../src/agent/replay';
import { MODEL_EXAMPLES } from '../../src/engine/model-examples';
import { parseConversation } from '../../src/format/conversation';
import { renderSegments, segmentsToIds } from '../../src/format/render';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import { createNodeEngine } from '../../worker/create-node-engine';
import { startProxiedBrowser } from './harness';
import { contrastRatios, seriousViolations } from './pages/a11y';
import { ask, blockOutside, CHAT_TEST_PAGE, divergent, forcedIds, loadTinyModel, recordSteps, screenshot, waitForChatPage } from './pages/ui-support';
import { suiteStack } from './suite-stack';

const stack = suiteStack(startProxiedBrowser);
const tokenizer = loadTokenizer();
let context: BrowserContext;
let page: Page;
let outside: string[];
const logs: string[] = [];
const grammarModuleRequests: string[] = [];

const steps = () => page.evaluate(() => window.uiSteps);
const lastTurn = () => page.locator('.turn').last();
const clipboard = () => page.evaluate(() => navigator.clipboard.readText());

async function openChatPage(ctx: BrowserContext, query = ''): Promise<Page> {
  const p = await ctx.newPage();
  p.setDefaultTimeout(60_000); // two shared cores: be patient with a busy machine
  p.on('console', (m) => logs.push(`[${m.type()}] ${m.text()}`));
  p.on('pageerror', (e) => logs.push(`[pageerror] ${e.message}`));
  await p.goto(`${stack.vite.url}${CHAT_TEST_PAGE}${query}`);
  await waitForChatPage(p);
  return p;
}

beforeAll(async () => {
  stack.fake.braveAnswer = () => [
    { title: 'Reykjavík — Wikipedia', url: 'https://en.wikipedia.org/wiki/Reykjav%C3%ADk', description: 'Reykjavík is the capital of Iceland, with about 139,000 people.' },
    { title: 'Statistics Iceland: population', url: 'https://www.statice.is/statistics/population/', description: 'Population on 1 January 2024, by municipality.' },
  ];
  context = await stack.browser.newContext({ viewport: { width: 1280, height: 860 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.vite.url });
  outside = await blockOutside(context, [stack.vite.url]);
  context.on('request', (r) => void (r.url().includes('web-xgrammar') && grammarModuleRequests.push(r.url())));
  page = await openChatPage(context);
  await recordSteps(page);
}, 120_000);
afterAll(async () => {
  await context?.close();
});
afterEach(({ task }) => {
  if (task.result?.state === 'fail') console.log(logs.join('\n'));
});

describe('the chat page, conversation features', { timeout: 120_000 }, () => {
  it('labels GPU memory as what it is: none on a software renderer, never system memory passed off as GPU memory', async () => {
    const report = await page.locator('.capability-report').innerText();
    expect(report).toMatch(/WebGPU: yes \(.*a software renderer\)/);
    expect(report).toContain('GPU memory: none — no GPU here; WebGPU runs on the CPU (a software renderer)');
    expect(report).not.toMatch(/GPU memory: about \d+ GB/);
  });

  it('axe-core finds no serious or critical violation before a model is loaded', async () => {
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('a model ready: Send works and the empty screen offers questions this model can answer', async () => {
    expect(await page.locator('.empty-state').innerText()).toMatch(/^No model is loaded/);
    await loadTinyModel(page);
    expect(await page.locator('button.send').isDisabled()).toBe(false);
    expect(await page.locator('.composer-note').innerText()).toMatch(/Enter sends/);
    const examples = page.locator('.empty-state button.example');
    expect(await examples.allInnerTexts()).toEqual(['Say something (this test model has random weights: it answers with noise).']);
    await examples.first().click();
    expect(await page.inputValue('.composer-input')).toBe('Say something (this test model has random weights: it answers with noise).');
    await page.fill('.composer-input', '');
  });

  it('tool cards show failure as failure: a Python SyntaxError and a denied search (forced)', async () => {
    const forced = forcedIds('<|python_tag|>print("unclosed"<|eom_id|>', '<|python_tag|>brave_search.call(query="Reykjavik population")<|eom_id|>', 'Sorry, I could not do either.<|eot_id|>');
    await page.evaluate((ids) => window.llamaTest!.forceNextRun(ids), forced);
    await page.fill('.composer-input', 'Print something, then search.');
    await page.press('.composer-input', 'Enter');
    await page.locator('dialog.confirm-dialog button[data-answer="deny"]').click();
    await page.waitForFunction(() => document.querySelector('.turn:last-of-type')?.getAttribute('data-reason') === 'done');
    const python = lastTurn().locator('.tool-card[data-tool="code_interpreter"]');
    expect(await python.getAttribute('data-status')).toBe('failed');
    expect(await python.locator('.tool-status').innerText()).toMatch(/^failed · (\d+ ms|\d+\.\d s)$/);
    expect(await python.locator('.tool-section.is-error[data-section="error"] pre').innerText()).toMatch(/SyntaxError/);
    const search = lastTurn().locator('.tool-card[data-tool="brave_search"]');
    expect(await search.getAttribute('data-status')).toBe('denied');
    expect(await search.locator('.tool-result').innerText()).toContain('the user declined to run brave_search');
    expect(stack.fake.requests.filter((r) => r.service === 'brave')).toHaveLength(0);
    await python.scrollIntoViewIfNeeded();
    await screenshot(page, 'failed-tool-card');
  });

  it('search results are titled links with their host; Wolfram|Alpha answers as its pods', async () => {
    const forced = forcedIds(
      '<|python_tag|>brave_search.call(query="Reykjavik population")<|eom_id|>',
      '<|python_tag|>wolfram_alpha.call(query="population of Reykjavik")<|eom_id|>',
      'About **139,000** people live in Reykjavík.<|eot_id|>',
    );
    await page.evaluate((ids) => window.llamaTest!.forceNextRun(ids), forced);
    await page.fill('.composer-input', 'How many people live in Reykjavik?');
    await page.press('.composer-input', 'Enter');
    for (let i = 0; i < 2; i++) await page.locator('dialog.confirm-dialog button[data-answer="once"]').click();
    await page.waitForFunction(() => document.querySelector('.turn:last-of-type')?.getAttribute('data-reason') === 'done');
    const sources = lastTurn().locator('.tool-card[data-tool="brave_search"] .source');
    expect(await sources.count()).toBe(2);
    const first = sources.first().locator('a.source-title');
    expect(await first.innerText()).toBe('Reykjavík — Wikipedia');
    expect(await first.getAttribute('href')).toBe('https://en.wikipedia.org/wiki/Reykjav%C3%ADk');
    expect(await first.getAttribute('rel')).toBe('noopener noreferrer nofollow');
    expect(await first.getAttribute('target')).toBe('_blank');
    expect(await sources.locator('.source-host').allInnerTexts()).toEqual(['en.wikipedia.org', 'statice.is']);
    const pods = lastTurn().locator('.tool-card[data-tool="wolfram_alpha"] .pods');
    expect(await pods.locator('dt').allInnerTexts()).toEqual(expect.arrayContaining(['Input interpretation', 'Result']));
    expect(await pods.innerText()).toContain('139875 people (2024 estimate)');
    await lastTurn().locator('.tool-card[data-tool="brave_search"]').scrollIntoViewIfNeeded();
    await screenshot(page, 'search-sources');
  });

  it('a step that repeats itself is stopped by the repetition guard and says so; the conversation goes on (forced)', async () => {
    const sentence = ' I am unable to search without permission, so I will not search.';
    expect(await ask(page, 'Search again?', forcedIds(`${sentence.repeat(40)}<|eot_id|>`))).toBe('repetition');
    expect(await lastTurn().locator('.turn-note.reason-repetition').innerText()).toMatch(/started repeating itself/);
    const step = (await steps()).at(-1)!;
    expect(step.stats.decodedTokens).toBeLessThan(tokenizer.encode(sentence).length * 15); // of 40 copies forced
    expect(await ask(page, 'Fine, just say hi.', forcedIds('Hi!<|eot_id|>'))).toBe('done');
  });

  it('code blocks are highlighted, labelled with their language, and copied exactly; every message has Copy', async () => {
    // The last line is wider than the box: the block scrolls sideways (and so must take focus, for axe below).
    const code = `def double(x):\n    return x * 2  # twice\n\nprint(double(21))\n# ${'a long line '.repeat(20)}`;
    const answer = `Here it is:\n\n\`\`\`python\n${code}\n\`\`\`\n\nIt prints **42**.`;
    expect(await ask(page, 'Write a Python function that doubles a number.', forcedIds(`${answer}<|eot_id|>`))).toBe('done');
    const block = lastTurn().locator('.prose .code-block');
    expect(await block.getAttribute('data-lang')).toBe('python');
    expect(await block.locator('.code-lang').innerText()).toBe('python');
    await block.locator('code.hljs .hljs-keyword').first().waitFor();
    expect(await block.locator('.hljs-keyword').allInnerTexts()).toEqual(expect.arrayContaining(['def', 'return']));
    expect(await block.locator('.hljs-comment').first().innerText()).toBe('# twice');
    expect(await block.locator('pre').evaluate((el) => el.scrollWidth > el.clientWidth && el.tabIndex === 0)).toBe(true);
    expect(await block.locator("code").evaluate((el) => el.textContent)).toBe(code);
    await block.locator('button.copy-code').click();
    expect(await clipboard()).toBe(code);
    expect(await block.locator('button.copy-code .copy-label').innerText()).toBe('Copied');
    await lastTurn().locator('.user-actions button.copy').click();
    expect(await clipboard()).toBe('Write a Python function that doubles a number.');
    await lastTurn().locator('.turn-actions button.copy').click();
    expect(await clipboard()).toBe(answer);
    await block.scrollIntoViewIfNeeded();
    await screenshot(page, 'code-copy');
  });

  it('axe-core finds no serious or critical violation in a conversation with cards, code and actions, light or dark', async () => {
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  });

  it('regenerate any answer and edit any message: alternatives are kept and switchable, only what diverges is prefilled', async () => {
    await page.locator('.topbar button.new-chat').click();
    await page.evaluate(() => (window.uiSteps = []));
    for (const [q, a] of [['One?', 'Uno.'], ['Two?', 'Dos.'], ['Three?', 'Tres.']]) expect(await ask(page, q!, forcedIds(`${a}<|eot_id|>`))).toBe('done');
    const third = (await steps())[2]!;
    // Regenerate the middle answer: the prompt is a prefix of what the engine holds.
    await page.evaluate((ids) => window.llamaTest!.forceNextRun(ids), forcedIds('Deux.<|eot_id|>'));
    await page.locator('.turn').nth(1).locator('button.regenerate').click();
    await page.waitForFunction(() => window.uiSteps.length === 4 && !window.llamaTest!.page.session.busy);
    const regenerated = (await steps())[3]!;
    expect(regenerated.stats.prefilledTokens).toBe(divergent([...third.prompt.ids, ...third.ids], regenerated.prompt.ids));
    expect(regenerated.stats.prefilledTokens).toBe(1);
    expect(await page.locator('.turn .prose').allInnerTexts()).toEqual(['Uno.', 'Deux.']);
    expect(await page.locator('.turn').nth(1).locator('.alt-position').innerText()).toBe('2 / 2');
    // Back to the first alternative: its continuation comes with it.
    await page.locator('.turn').nth(1).locator('button.alt-prev').click();
    expect(await page.locator('.turn .prose').allInnerTexts()).toEqual(['Uno.', 'Dos.', 'Tres.']);
    // Edit the first message: a new branch from there; only the edited message and after are prefilled.
    await page.evaluate((ids) => window.llamaTest!.forceNextRun(ids), forcedIds('Eins.<|eot_id|>'));
    await page.locator('.turn').first().locator('button.edit').click();
    await page.locator('.turn').first().locator('textarea.edit-input').fill('One, in German?');
    await page.locator('.turn').first().locator('button.send-edit').click();
    await page.waitForFunction(() => window.uiSteps.length === 5 && !window.llamaTest!.page.session.busy);
    const edited = (await steps())[4]!;
    expect(edited.stats.prefilledTokens).toBe(divergent([...regenerated.prompt.ids, ...regenerated.ids], edited.prompt.ids));
    expect(edited.stats.prefilledTokens).toBeLessThan(edited.prompt.ids.length / 2);
    expect(await page.locator('.turn .bubble').allInnerTexts()).toEqual(['One, in German?']);
    expect(await page.locator('.turn').first().locator('.alt-position').innerText()).toBe('2 / 2');
    await page.locator('.turn').first().locator('button.alt-prev').click();
    expect(await page.locator('.turn .prose').allInnerTexts()).toEqual(['Uno.', 'Dos.', 'Tres.']);
  });

  it('the context meter shows the tokens this conversation takes of the window', async () => {
    const meter = page.locator('.composer .context-meter');
    const used = await page.evaluate(() => window.llamaTest!.page.session.contextTokens());
    expect(used).toBeGreaterThan(20);
    expect(await meter.getAttribute('data-used')).toBe(String(used));
    expect(await meter.locator('.context-label').innerText()).toBe(`${used} / 4,096 tokens`);
    expect(await meter.locator('meter').evaluate((m) => [(m as HTMLMeterElement).value, (m as HTMLMeterElement).max])).toEqual([used, 4096]);
  });

  it('the conversation list: rename, export (the CLI renders and replays the file exactly), delete', async () => {
    const current = page.locator('.chat-item.is-current');
    expect(await current.locator('.chat-title').innerText()).toBe('One?');
    expect(await page.locator('.chat-item').count()).toBeGreaterThanOrEqual(2);
    await current.locator('button.rename').click();
    await page.locator('.chat-item input.rename-input').fill('Counting in three languages');
    await page.locator('.chat-item input.rename-input').press('Enter');
    await page.waitForFunction(() => document.querySelector('.chat-item.is-current .chat-title')?.textContent === 'Counting in three languages');
    await screenshot(page, 'conversation-list');

    const [download] = await Promise.all([page.waitForEvent('download'), current.locator('button.export').click()]);
    expect(download.suggestedFilename()).toBe('counting-in-three-languages.json');
    const file = JSON.parse(readFileSync((await download.path())!, 'utf8')) as unknown;
    const shown = (await steps()).slice(0, 3); // the branch shown: One?/Uno., Two?/Dos., Three?/Tres.
    const last = shown[2]!;
    expect(segmentsToIds(renderSegments(parseConversation(file)), tokenizer)).toEqual([...last.prompt.ids, ...last.ids, last.stopId]);
    const engine = createNodeEngine();
    await engine.load('tiny-llama');
    try {
      const report = await replay(parseConversation(file), { engine, tokenizer, tools: [] });
      expect(report.prompts).toEqual(shown.map((s) => s.prompt.text));
    } finally {
      await engine.unload();
    }

    const count = await page.locator('.chat-item').count();
    await current.locator('button.delete').click();
    const deleteDialog = page.locator('dialog.delete-dialog');
    await deleteDialog.waitFor({ state: 'visible' });
    expect(await deleteDialog.innerText()).toContain('Delete “Counting in three languages”?');
    await deleteDialog.locator('button.confirm').click();
    await page.waitForFunction((n) => document.querySelectorAll('.chat-item').length === n - 1, count);
    expect(await page.locator('.turn').count()).toBe(0);
    expect(await page.locator('.chat-title').allInnerTexts()).not.toContain('Counting in three languages');
  });

  it('reload mid-conversation: the chat, its tool cards and the model come back; a follow-up prefills only what was appended', async () => {
    expect(await ask(page, 'What is 6 times 7?', forcedIds('<|python_tag|>print(6 * 7)<|eom_id|>', 'It is **42**.<|eot_id|>'))).toBe('done');
    const held = await page.evaluate(() => {
      const s = window.uiSteps.at(-1)!;
      return [...s.prompt.ids, ...s.ids];
    });
    const transcript = await page.evaluate(() => window.llamaTest!.page.session.transcript);
    await page.reload();
    await waitForChatPage(page);
    await recordSteps(page);
    // The model comes back by itself (served by this site: no download), and so does the chat.
    await page.waitForSelector('.model-panel[data-loaded="tiny-llama"]', { timeout: 120_000 });
    expect(await page.evaluate(() => window.llamaTest!.page.session.transcript)).toEqual(transcript);
    expect(await page.locator('.turn').count()).toBe(1);
    const card = lastTurn().locator('.tool-card[data-tool="code_interpreter"]');
    expect(await card.getAttribute('data-status')).toBe('done');
    expect(await card.locator('[data-section="stdout"] pre').evaluate((el) => el.textContent)).toBe('42\n');
    expect(await lastTurn().locator('.prose strong').innerText()).toBe('42');
    expect(await page.locator('.chat-item.is-current .chat-title').innerText()).toBe('What is 6 times 7?');
    // The first request after the reload prefills the restored transcript once (a new worker has an
    // empty cache); it renders to exactly the ids the engine held before the reload.
    expect(await ask(page, 'And 7 times 8?', forcedIds('It is **56**.<|eot_id|>'))).toBe('done');
    const [first] = await steps();
    expect(first!.prompt.ids.slice(0, held.length)).toEqual(held);
    // The follow-up prefills only what was appended.
    expect(await ask(page, 'And 8 times 9?', forcedIds('It is **72**.<|eot_id|>'))).toBe('done');
    const [, second] = await steps();
    expect(second!.stats.prefilledTokens).toBe(divergent([...first!.prompt.ids, ...first!.ids], second!.prompt.ids));
    expect(second!.stats.reusedTokens).toBe(first!.prompt.ids.length + first!.ids.length);
    expect(second!.stats.prefilledTokens).toBeLessThan(30);
  });

  it("the inspector's legend explains the split, and every part of it reads at 4.5:1 or more", async () => {
    await page.click('button.toggle-inspector');
    const legend = page.locator('.inspector .legend');
    expect(await legend.locator('li').allInnerTexts()).toEqual([
      '<|eot_id|> a special token (one id)',
      'reused already in the KV cache: not computed again',
      'prefilled run through the model this step',
    ]);
    const last = page.locator('.inspector-step').last();
    await last.locator('pre.prompt-text[data-rendered="true"]').waitFor();
    for (const sel of ['.inspector .legend li', '.inspector .legend .swatch', '.inspector-step:last-child pre.prompt-text > span']) {
      const ratios = await contrastRatios(page, sel);
      expect(ratios.length, sel).toBeGreaterThan(0);
      expect(Math.min(...ratios), sel).toBeGreaterThanOrEqual(4.5);
    }
    const backgrounds = await page.evaluate(() => ['.legend .tok-special', '.legend .seg-reused', '.legend .seg-prefilled'].map((s) => getComputedStyle(document.querySelector(s)!).backgroundColor));
    expect(new Set(backgrounds).size).toBe(3);
    // The prompt is not a second scrolling box inside the scrolling pane.
    expect(await last.locator('pre.prompt-text').evaluate((el) => el.scrollHeight <= el.clientHeight + 1)).toBe(true);
    await page.locator('.inspector-pane').evaluate((el) => el.scrollTo(0, 0));
    await screenshot(page, 'inspector-legend');
    await page.click('button.close-inspector');
  });

  it("settings show what runs: the micro model's own greedy decoding and its per-step cap; its examples follow the tools", async () => {
    await page.selectOption('.model-select', 'micro-llama');
    await page.click('.model-panel button.load');
    await page.waitForSelector('.model-panel[data-loaded="micro-llama"]', { timeout: 120_000 });
    const value = (label: string) => page.locator(`.effective-list dd[data-setting="${label}"]`);
    expect(await value('Temperature').innerText()).toBe("0 (Micro Llama (offline demo)'s own setting)");
    expect(await value('Temperature').getAttribute('data-overridden')).toBe('true');
    expect(await page.locator('.settings-panel input[name="temperature"]').inputValue()).toBe('0.6'); // the user's own value stays
    expect(await value('Tokens per step').innerText()).toBe('256 (1/4 of the 1,024-token context (your setting: 1024))');
    await page.locator('.topbar button.new-chat').click();
    const examples = page.locator('.empty-state button.example');
    // models/examples.json's micro-llama list, every question shown; without wolfram_alpha, those that need it are not.
    const listed = MODEL_EXAMPLES['micro-llama']!;
    const withoutWolfram = listed.filter((e) => !e.tools.includes('wolfram_alpha'));
    expect(withoutWolfram.length).toBeLessThan(listed.length);
    expect(await examples.allInnerTexts()).toEqual(listed.map((e) => e.text));
    await page.locator('.settings-panel input[name="tool:wolfram_alpha"]').uncheck();
    await page.waitForFunction((n) => document.querySelectorAll('.empty-state button.example').length === n, withoutWolfram.length);
    expect(await examples.allInnerTexts()).toEqual(withoutWolfram.map((e) => e.text));
    expect(await examples.evaluateAll((els) => els.every((e) => !(e.getAttribute('data-tools') ?? '').includes('wolfram_alpha')))).toBe(true);
    await page.locator('.settings-panel input[name="tool:wolfram_alpha"]').check();
  });

  it("the micro model, unforced, calls Python under the loop's call constraint, and its card shows the call and its output", async () => {
    // XGrammar is loaded by the engine worker only for a constrained request: its module being fetched proves the page sent one.
    expect(grammarModuleRequests.length).toBeGreaterThan(0);
    const before = (await steps()).length;
    await page.fill('.composer-input', 'Use Python to add up the numbers from 1 to 100.');
    await page.press('.composer-input', 'Enter');
    await page.waitForFunction(() => document.querySelector('.turn:last-of-type')?.getAttribute('data-reason') === 'done', undefined, { timeout: 120_000 });
    const [call] = (await steps()).slice(before);
    expect(call!.raw).toMatch(/^<\|python_tag\|>/);
    expect(call!.stop).toBe('eom');
    expect(call!.toolCalls.map((c) => c.kind)).toEqual(['code']);
    const card = lastTurn().locator('.tool-card[data-tool="code_interpreter"]');
    expect(await card.count()).toBe(1);
    expect(await card.getAttribute('data-status')).toBe('done');
    expect(await card.locator('pre.tool-call').innerText()).toBe(call!.toolCalls[0]!.arguments.code);
    expect(await card.locator('.tool-result').innerText()).toContain('5050');
    expect(await lastTurn().locator('.prose').last().innerText()).toContain('5050');
  });

  it('made no request outside its own origin', () => {
    expect(outside).toEqual([]);
  });
});

describe('loading: a confirmation before big downloads, and errors that say which host failed and why', { timeout: 120_000 }, () => {
  /** A fresh page in its own context; `setup` runs on the context first (blocking, offline, a CSP). */
  async function freshPage(setup: (ctx: BrowserContext) => Promise<void>): Promise<{ ctx: BrowserContext; p: Page }> {
    const ctx = await stack.browser.newContext({ viewport: { width: 1280, height: 860 } });
    await setup(ctx);
    return { ctx, p: await openChatPage(ctx) };
  }
  /** Picks a model that needs a download and answers the confirmation. */
  async function loadRemote(p: Page, answer: 'cancel' | 'confirm'): Promise<void> {
    await p.selectOption('.model-select', 'Llama-3.2-1B-Instruct-q4f32_1-MLC');
    await p.click('.model-panel button.load');
    await p.locator('dialog.download-dialog').waitFor({ state: 'visible' });
    await p.locator(`dialog.download-dialog button.${answer}`).click();
  }

  it('asks before a download over 100 MB — size, hosts, time — strongly when the page said it will not run here; Cancel downloads nothing', async () => {
    const { ctx, p } = await freshPage(async (c) => void (await blockOutside(c, [stack.vite.url])));
    try {
      const requests: string[] = [];
      p.on('request', (r) => requests.push(r.url()));
      await p.selectOption('.model-select', 'Llama-3.2-1B-Instruct-q4f32_1-MLC');
      expect(await p.locator('.model-panel button.load').innerText()).toBe('Download & load (760 MB)');
      await p.click('.model-panel button.load');
      const dialog = p.locator('dialog.download-dialog');
      await dialog.waitFor({ state: 'visible' });
      expect(await dialog.getAttribute('data-strong')).toBe('true');
      const text = await dialog.innerText();
      expect(text).toMatch(/Llama 3\.2 1B Instruct \(q4f32\) will not run well here/);
      expect(text).toMatch(/software renderer here \(no real GPU\): far too slow/);
      expect(text).toMatch(/760 MB download from huggingface\.co and raw\.githubusercontent\.com/);
      expect(text).toMatch(/About .* at \d+ Mbit\/s/);
      expect(await dialog.locator('button.confirm').innerText()).toBe('Download 760 MB anyway');
      expect(await p.evaluate(() => document.activeElement?.className)).toContain('cancel');
      await screenshot(p, 'download-confirmation');
      await dialog.locator('button.cancel').click();
      expect(await dialog.isHidden()).toBe(true);
      expect(await p.evaluate(() => window.llamaTest!.page.loader.state.kind)).toBe('idle');
      expect(requests.filter((u) => !u.startsWith(stack.vite.url))).toEqual([]);
      // A model served by this site loads without a question.
      await loadTinyModel(p);
      expect(await dialog.isHidden()).toBe(true);
    } finally {
      await ctx.close();
    }
  });

  it('an unreachable host is named, with advice for the network (not "a smaller model")', async () => {
    const { ctx, p } = await freshPage(async (c) => void (await blockOutside(c, [stack.vite.url])));
    try {
      await loadRemote(p, 'confirm');
      const error = p.locator('.model-panel .error-box[data-cause]');
      await error.waitFor({ timeout: 120_000 });
      expect(await error.getAttribute('data-cause')).toBe('unreachable');
      expect(await error.getAttribute('data-host')).toBe('huggingface.co');
      const text = await error.innerText();
      expect(text).toMatch(/^huggingface\.co could not be reached\./);
      expect(text).toMatch(/firewall, a proxy or a browser extension/);
      expect(text).not.toMatch(/smaller model/);
      expect(await p.locator('.composer-note').innerText()).toMatch(/did not load/);
    } finally {
      await ctx.close();
    }
  });

  it('a failed load keeps the model that was running: the header names it and it still answers', async () => {
    const { ctx, p } = await freshPage(async (c) => void (await blockOutside(c, [stack.vite.url])));
    try {
      await loadTinyModel(p);
      const pill = p.locator('.model-pill');
      const before = await pill.innerText();
      await loadRemote(p, 'confirm');
      await p.locator('.model-panel .error-box[data-cause]').waitFor({ timeout: 120_000 });
      expect(await pill.innerText()).toBe(before);
      expect(await pill.getAttribute('data-state')).toBe('loaded');
      expect(await p.locator('.model-panel .kept-model').innerText()).toMatch(/^Still loaded: Tiny test model/);
      expect(await p.locator('.composer button.send').isDisabled()).toBe(false);
      expect(await ask(p, 'Still there?', forcedIds('Yes.<|eot_id|>'))).toBe('done');
      expect((await p.locator('.turn').last().locator('.prose:not([hidden])').innerText()).trim()).toBe('Yes.');
    } finally {
      await ctx.close();
    }
  });

  it('at 1,280 px the settings fit their panel: nothing clipped or cut off', async () => {
    const { ctx, p } = await freshPage(async () => {});
    try {
      const overflowing = await p.evaluate(() => {
        const panel = document.querySelector('.settings-panel')!.getBoundingClientRect();
        return Array.from(document.querySelectorAll('.settings-panel label, .settings-panel select, .settings-panel input'))
          .filter((el) => el.getBoundingClientRect().right > panel.right + 0.5 || el.scrollWidth > el.clientWidth + 1)
          .map((el) => `${el.tagName.toLowerCase()} ${(el.textContent ?? '').trim().slice(0, 40) || (el as HTMLInputElement).name}`);
      });
      expect(overflowing).toEqual([]);
      await p.locator('.settings-panel').scrollIntoViewIfNeeded();
      await screenshot(p, 'settings-1280px');
    } finally {
      await ctx.close();
    }
  });

  it('offline: says the browser is offline and which hosts the files come from', async () => {
    const { ctx, p } = await freshPage(async () => {});
    try {
      await ctx.setOffline(true);
      await loadRemote(p, 'confirm');
      const error = p.locator('.model-panel .error-box[data-cause]');
      await error.waitFor({ timeout: 120_000 });
      expect(await error.getAttribute('data-cause')).toBe('offline');
      expect(await error.innerText()).toMatch(/^This browser is offline\.\s+.*come from huggingface\.co and raw\.githubusercontent\.com: reconnect/);
    } finally {
      await ctx.close();
    }
  });

  it("blocked by the page's Content-Security-Policy: names the host and the directive", async () => {
    const { ctx, p } = await freshPage(async (c) => {
      await blockOutside(c, [stack.vite.url]);
      await c.route(`${stack.vite.url}${CHAT_TEST_PAGE}`, async (route) => {
        const response = await route.fetch();
        const csp = "default-src 'self' 'unsafe-inline' 'wasm-unsafe-eval' blob: data:; connect-src 'self'";
        await route.fulfill({ response, headers: { ...response.headers(), 'content-security-policy': csp } });
      });
    });
    try {
      await loadRemote(p, 'confirm');
      const error = p.locator('.model-panel .error-box[data-cause]');
      await error.waitFor({ timeout: 120_000 });
      expect(await error.getAttribute('data-cause')).toBe('csp');
      expect(await error.innerText()).toMatch(/^This page's Content-Security-Policy blocks (huggingface\.co|raw\.githubusercontent\.com)\.\s+Its connect-src must allow https:\/\//);
    } finally {
      await ctx.close();
    }
  });
});

describe('the first visit on a phone', { timeout: 120_000 }, () => {
  it('at 375 × 667 the load action is on the first screen and the message box placeholder is not clipped', async () => {
    const ctx = await stack.browser.newContext({ viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true });
    try {
      const p = await openChatPage(ctx);
      const load = p.locator('.model-panel button.load');
      const box = (await load.boundingBox())!;
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.y + box.height).toBeLessThanOrEqual(667);
      // Nothing covers it, and it is not inside a pane scrolled away.
      expect(await p.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.closest('button')?.classList.contains('load'), { x: box.x + box.width / 2, y: box.y + box.height / 2 })).toBe(true);
      const fits = await p.locator('.composer-input').evaluate((el) => {
        const input = el as HTMLTextAreaElement;
        const cs = getComputedStyle(input);
        const ctx2d = document.createElement('canvas').getContext('2d')!;
        ctx2d.font = `${cs.fontSize} ${cs.fontFamily}`;
        return ctx2d.measureText(input.placeholder).width <= input.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
      });
      expect(fits).toBe(true);
      expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await screenshot(p, 'mobile-first-visit');
    } finally {
      await ctx.close();
    }
  });
});
