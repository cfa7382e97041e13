/**
 * The chat page in headless Chromium: the capability-driven picker, loading the tiny model through
 * the worker with a visible progress bar, a forced tool loop (web search through the vite proxy
 * against the loopback fake, behind the confirmation dialog; then Python in the sandbox) shown as
 * tool cards and a Markdown answer, the inspector's exact prompt with highlighted specials and its
 * reused/prefilled split, stop and regenerate, inert Markdown injection, the keyboard, 375 px.
 * One page for the whole file (Pyodide's cold start is seconds); tests run in order.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startProxiedBrowser } from './harness';
import { ask, blockOutside, CHAT_TEST_PAGE, divergent, forcedIds, loadTinyModel, recordSteps, screenshot, waitForChatPage } from './pages/ui-support';
import { suiteStack } from './suite-stack';

const stack = suiteStack(startProxiedBrowser);
let context: BrowserContext;
let page: Page;
let outside: string[];
const logs: string[] = [];

declare global {
  interface Window {
    pwned?: string;
  }
}

beforeAll(async () => {
  const { fake, vite, browser } = stack;
  fake.braveAnswer = () => [{ title: 'Reykjavik', url: 'https://en.wikipedia.org/wiki/Reykjavik', description: 'Reykjavik had about <b>139,000</b> people in 2024.' }];
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  outside = await blockOutside(context, [vite.url]);
  page = await context.newPage();
  page.setDefaultTimeout(60_000); // two shared cores: be patient with a busy machine
  page.on('console', (m) => logs.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`[pageerror] ${e.message}`));
  await page.goto(`${vite.url}${CHAT_TEST_PAGE}`);
  await waitForChatPage(page);
  await recordSteps(page);
}, 120_000);
afterEach(({ task }) => {
  if (task.result?.state === 'fail') console.log(logs.join('\n'));
});

const lastTurn = () => page.locator('.turn').last();

describe('the chat page', { timeout: 120_000 }, () => {
  it('reports the capabilities, explains why the default model will not fit, and labels the test model', async () => {
    const report = await page.locator('.capability-report').innerText();
    expect(report).toMatch(/WebGPU: (yes|no)/);
    // SwiftShader (or no adapter): Llama 3.1 8B cannot run here, and the page says so.
    expect(await page.locator('.fit-explanation').innerText()).toMatch(/Llama 3\.1 8B Instruct .* will not run here: .+/);
    const tiny = await page.locator('.model-select option[value="tiny-llama"]').innerText();
    expect(tiny).toMatch(/test model/);
  });

  it('before any model is loaded Send is disabled and says why; Enter sends nothing and the text is kept', async () => {
    expect(await page.locator('button.send').isDisabled()).toBe(true);
    expect(await page.locator('.composer-note').innerText()).toBe('No model is loaded: pick one under Model and press Load.');
    expect(await page.locator('button.send').getAttribute('aria-describedby')).toBe(await page.locator('.composer-note').getAttribute('id'));
    await page.fill('.composer-input', 'Hello?');
    await page.press('.composer-input', 'Enter');
    expect(await page.locator('.turn').count()).toBe(0);
    expect(await page.inputValue('.composer-input')).toBe('Hello?');
    expect(await page.evaluate(() => window.llamaTest!.page.session.transcript)).toEqual([]);
    await page.fill('.composer-input', '');
  });

  it('loads the tiny model through the worker with a visible progress bar (bytes, %)', async () => {
    const progress = await loadTinyModel(page);
    expect(progress.barShown).toBe(true);
    expect(progress.labels.some((l) => /MB of .*MB · \d+%/.test(l))).toBe(true);
    expect(await page.locator('.model-pill').innerText()).toMatch(/Tiny test model.*wasm/);
    expect(await page.locator('.model-panel .load-progress').isHidden()).toBe(true);
    // Focus goes to the message box once a model is ready.
    expect(await page.evaluate(() => document.activeElement?.className)).toContain('composer-input');
  });

  it('cached models: size per model (variants sharing weights together), and Delete removes them', async () => {
    const model = 'https://huggingface.co/mlc-ai/Llama-3.2-1B-Instruct-q4f32_1-MLC/resolve/main/';
    await page.evaluate(async (base) => {
      const cache = await caches.open('webllm/model');
      await cache.put(`${base}params_shard_0.bin`, new Response(new Uint8Array(1500)));
      await cache.put(`${base}params_shard_1.bin`, new Response(new Uint8Array(500)));
    }, model);
    await page.click('.cache-panel button:has-text("Refresh")');
    const entry = page.locator(`.cache-list li[data-key="${model}"]`);
    expect(await entry.locator('.cache-name').innerText()).toBe('Llama 3.2 1B Instruct (q4f32)');
    expect(await entry.locator('.cache-size').innerText()).toBe('2.0 KB · 2 files');
    // The page's own dialog asks first (a native confirm() would block the page); Cancel keeps the files.
    const ask = page.locator('dialog.delete-dialog');
    await entry.locator('button', { hasText: 'Delete' }).click();
    await ask.waitFor({ state: 'visible' });
    expect(await ask.innerText()).toMatch(/Delete Llama 3\.2 1B Instruct \(q4f32\)\?[\s\S]*2\.0 KB in 2 files/);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await ask.locator('button.cancel').click();
    await ask.waitFor({ state: 'hidden' });
    expect(await page.evaluate(async () => (await (await caches.open('webllm/model')).keys()).length)).toBe(2);
    await entry.locator('button', { hasText: 'Delete' }).click();
    await ask.locator('button.confirm').click();
    await entry.waitFor({ state: 'detached' });
    expect(await page.evaluate(async () => (await (await caches.open('webllm/model')).keys()).length)).toBe(0);
  });

  it('a forced tool loop: confirmation dialog, a card per call (search result, code with stdout), then the Markdown answer', async () => {
    const forced = forcedIds(
      '<|python_tag|>brave_search.call(query="Reykjavik population")<|eom_id|>',
      '<|python_tag|>population = 139_000\nprint(f"{population * 2:,}")<|eom_id|>',
      'Reykjavik has about **139,000** people; twice that is `278,000`.<|eot_id|>',
    );
    await page.evaluate((ids) => window.llamaTest!.forceNextRun(ids), forced);
    await page.fill('.composer-input', 'How many people live in Reykjavik, and twice that?');
    await page.press('.composer-input', 'Enter');
    const dialog = page.locator('dialog.confirm-dialog');
    await dialog.waitFor({ state: 'visible' });
    expect(await dialog.innerText()).toMatch(/brave_search[\s\S]*Reykjavik population/);
    expect(await dialog.locator('.destination').innerText()).toBe(`The query is sent to Brave Search (${new URL(stack.fake.proxyOptions().braveBase).host}) through the tool proxy.`);
    await screenshot(page, 'consent-service');
    expect(await page.locator('.tool-card[data-tool="brave_search"] .tool-status').innerText()).toMatch(/waiting for your OK/);
    await dialog.locator('button[data-answer="always"]').click();
    await page.waitForFunction(() => document.querySelector('.turn:last-of-type')?.getAttribute('data-reason') === 'done', undefined, { timeout: 60_000 });

    const search = lastTurn().locator('.tool-card[data-tool="brave_search"]');
    expect(await search.locator('.tool-status').innerText()).toMatch(/^done · \d+ ms$/);
    expect(await search.locator('.tool-result').innerText()).toContain('Reykjavik had about 139,000 people in 2024.');
    const code = lastTurn().locator('.tool-card[data-tool="code_interpreter"]');
    expect(await code.locator('.tool-call').innerText()).toContain('print(f"{population * 2:,}")');
    expect(await code.locator('[data-section="stdout"] pre').evaluate((el) => el.textContent)).toBe('278,000\n');
    const prose = lastTurn().locator('.prose:not([hidden])');
    expect(await prose.count()).toBe(1); // the two call steps show no prose
    expect(await prose.locator('strong').innerText()).toBe('139,000');
    expect(await prose.innerText()).toContain('twice that is 278,000');
    expect(stack.fake.requests.filter((r) => r.service === 'brave')).toHaveLength(1);
    // The cards are collapsible.
    await search.locator('summary').click();
    expect(await search.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    await search.locator('summary').click();
    await screenshot(page, 'chat-tool-cards');
  });

  it('the inspector shows the exact prompt, highlighted specials, and the reused/prefilled split', async () => {
    await page.click('button.toggle-inspector');
    const steps = page.locator('.inspector-step');
    expect(await steps.count()).toBe(3);
    const last = steps.last();
    await last.locator('pre.prompt-text[data-rendered="true"]').waitFor();
    const recorded = await page.evaluate(() => window.uiSteps.at(-1)!);
    const pre = last.locator('pre.prompt-text');
    expect(await pre.evaluate((el) => el.textContent)).toBe(recorded.prompt.text);
    const specials = await pre.locator('.tok-special').allInnerTexts();
    expect(specials[0]).toBe('<|begin_of_text|>');
    expect(specials).toEqual(expect.arrayContaining(['<|start_header_id|>', '<|end_header_id|>', '<|python_tag|>', '<|eom_id|>', '<|eot_id|>']));
    const reused = await pre.locator('.seg-reused').evaluateAll((els) => els.map((e) => e.textContent).join(''));
    const prefilled = await pre.locator('.seg-prefilled').evaluateAll((els) => els.map((e) => e.textContent).join(''));
    expect(reused + prefilled).toBe(recorded.prompt.text);
    expect(recorded.stats.reusedTokens).toBeGreaterThan(0);
    // Everything up to the code call was in the KV cache; this step prefilled its <|eom_id|>, the
    // ipython result and the assistant header.
    expect(prefilled).toMatch(/^<\|eom_id\|><\|start_header_id\|>ipython<\|end_header_id\|>\n\n\{"stdout": "278,000\\n"\}<\|eot_id\|><\|start_header_id\|>assistant<\|end_header_id\|>\n\n$/);
    expect(await last.locator('[data-stat="prompt-tokens"]').innerText()).toBe(`${recorded.stats.promptTokens} tokens`);
    expect(await last.locator('[data-stat="reused-tokens"]').innerText()).toBe(`${recorded.stats.reusedTokens} tokens`);
    expect(await last.locator('[data-stat="prefilled-tokens"]').innerText()).toBe(`${recorded.stats.prefilledTokens} tokens`);
    expect(await last.locator('[data-stat="decode"]').innerText()).toMatch(/tok\/s/);
    // Show where the reused part ends and this step's prefill begins.
    await pre.locator('.seg-prefilled').first().evaluate((el) => el.scrollIntoView({ block: 'center' }));
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBe(860); // the page itself never scrolls
    await screenshot(page, 'inspector');
    await page.click('button.close-inspector');
    expect(await page.locator('.inspector-pane').isHidden()).toBe(true);
  });

  it('Escape stops a streaming answer; the next message works; Regenerate replaces the last answer', async () => {
    await page.evaluate(() => (window.uiSteps = []));
    const deltas = page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          const off = window.llamaTest!.page.session.on((e) => {
            if (e.type === 'agent' && e.event.type === 'text-delta') {
              off();
              resolve();
            }
          });
        }),
    );
    const count = await page.locator('.turn').count();
    await page.fill('.composer-input', 'Tell me a very long story.');
    await page.press('.composer-input', 'Enter');
    await deltas;
    expect(await page.locator('button.stop').isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await page.waitForFunction((n) => document.querySelectorAll('.turn')[n]?.getAttribute('data-reason') === 'aborted', count);
    expect(await lastTurn().locator('.turn-note').innerText()).toBe('Stopped.');
    expect(await page.locator('button.send').isVisible()).toBe(true);

    expect(await ask(page, 'Then just say hi.', forcedIds('Hi!<|eot_id|>'))).toBe('done');
    expect(await lastTurn().locator('.prose').innerText()).toBe('Hi!');
    const turns = await page.locator('.turn').count();
    await page.evaluate((ids) => window.llamaTest!.forceNextRun(ids), forcedIds('Hello again, regenerated.<|eot_id|>'));
    await lastTurn().locator('button.regenerate').click();
    await page.waitForFunction(() => document.querySelector('.turn:last-of-type .prose')?.textContent?.trim() === 'Hello again, regenerated.');
    expect(await page.locator('.turn').count()).toBe(turns);
    const transcript = await page.evaluate(() => window.llamaTest!.page.session.transcript.map((m) => m.content));
    expect(transcript.slice(-2)).toEqual(['Then just say hi.', 'Hello again, regenerated.']);
  });

  it('Regenerate and Edit message prefill only what diverges from the cached prefix', async () => {
    await page.evaluate(() => (window.uiSteps = []));
    expect(await ask(page, 'Remember: the harbour has seven bridges and two ferries.', forcedIds('Noted.<|eot_id|>'))).toBe('done');
    // A step is recorded at its step-finish event, which follows the last rendered delta: wait for it.
    const step = async (n: number) => {
      await page.waitForFunction((i) => window.uiSteps.length > i, n);
      return page.evaluate((i) => window.uiSteps[i]!, n);
    };
    const answered = await step(0);
    await page.evaluate((ids) => window.llamaTest!.forceNextRun(ids), forcedIds('Noted again.<|eot_id|>'));
    await lastTurn().locator('button.regenerate').click();
    const regenerated = await step(1);
    expect(regenerated.stats.prefilledTokens).toBe(divergent([...answered.prompt.ids, ...answered.ids], regenerated.prompt.ids));
    expect(regenerated.stats.prefilledTokens).toBe(1);

    await page.waitForSelector('.turn:last-of-type button.edit');
    await lastTurn().locator('button.edit').click();
    await lastTurn().locator('textarea.edit-input').fill('Remember: the harbour has seven bridges and three ferries.');
    await page.evaluate((ids) => window.llamaTest!.forceNextRun(ids), forcedIds('Three ferries, noted.<|eot_id|>'));
    await lastTurn().locator('button.send-edit').click();
    await page.waitForFunction(() => document.querySelector('.turn:last-of-type .prose')?.textContent?.trim() === 'Three ferries, noted.');
    const edited = await step(2);
    const suffix = divergent([...regenerated.prompt.ids, ...regenerated.ids], edited.prompt.ids);
    expect(edited.stats.prefilledTokens).toBe(suffix);
    expect(suffix).toBeLessThan(edited.prompt.ids.length / 2);
    expect(await lastTurn().locator('.msg.user .bubble').innerText()).toBe('Remember: the harbour has seven bridges and three ferries.');
  });

  it('Markdown injection in an answer renders inert', async () => {
    const answer =
      'Look: <img src=x onerror="window.pwned=\'img\'"> <script>window.pwned=\'script\'</script>\n\n' +
      '[click me](javascript:window.pwned=\'link\') and <a href="javascript:window.pwned=\'raw\'">raw link</a> ' +
      '![tracker](https://tracker.example/pixel.png?leak=1) <iframe src="https://evil.example"></iframe>';
    expect(await ask(page, 'Say something nasty.', forcedIds(`${answer}<|eot_id|>`))).toBe('done');
    const prose = lastTurn().locator('.prose');
    expect(await prose.locator('img, script, iframe, svg, style').count()).toBe(0);
    const hrefs = await prose.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs.every((h) => h === null || /^https?:/.test(h))).toBe(true);
    expect(await prose.innerText()).toContain('<img src=x onerror=');
    expect(await prose.locator('a', { hasText: 'click me' }).count()).toBe(0); // an unsafe URL leaves plain text, no link
    await prose.getByText('click me').click();
    await page.waitForTimeout(200);
    expect(await page.evaluate(() => window.pwned)).toBeUndefined();
    expect(outside.filter((u) => /tracker|evil/.test(u))).toEqual([]);
  });

  it('keyboard: Shift+Enter is a newline, Enter sends, Tab goes from the box to Send; a skip link comes first', async () => {
    const count = await page.locator('.turn').count();
    await page.evaluate((ids) => window.llamaTest!.forceNextRun(ids), forcedIds('Two lines received.<|eot_id|>'));
    await page.focus('.composer-input');
    await page.keyboard.type('line one');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('line two');
    expect(await page.inputValue('.composer-input')).toBe('line one\nline two');
    expect(await page.locator('.turn').count()).toBe(count);
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => document.querySelectorAll('.turn')[n]?.getAttribute('data-reason') === 'done', count);
    expect(await lastTurn().locator('.msg.user .bubble').innerText()).toBe('line one\nline two');
    expect(await page.inputValue('.composer-input')).toBe('');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.className)).toContain('send');
    // From the top of the document, the first stop is the skip link, then the header's buttons.
    await page.evaluate(() => {
      document.body.tabIndex = -1;
      document.body.focus();
      document.body.removeAttribute('tabindex');
    });
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.className)).toBe('skip-link');
  });

  it('is usable at 375 px wide', async () => {
    await page.setViewportSize({ width: 375, height: 740 });
    await page.waitForTimeout(100);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    const box = await page.locator('.composer-input').boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(375);
    expect(box!.y + box!.height).toBeLessThanOrEqual(740);
    // With a model loaded, the sidebar is folded away on a narrow screen; its toggle brings it back.
    const toggle = page.locator('button.toggle-sidebar');
    expect(await page.locator('.sidebar').isHidden()).toBe(true);
    await toggle.click();
    expect(await page.locator('.model-select').isVisible()).toBe(true);
    await toggle.click();
    expect(await page.locator('.sidebar').isHidden()).toBe(true);
    expect(await ask(page, 'Small screen?', forcedIds('Works on a phone.<|eot_id|>'))).toBe('done');
    // The conversation follows its newest answer.
    const answer = await lastTurn().locator('.prose').boundingBox();
    expect(answer!.y + answer!.height).toBeLessThanOrEqual((await page.locator('.composer').boundingBox())!.y);
    expect(answer!.y).toBeGreaterThan(0);
    await screenshot(page, 'chat-375px');
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('Markdown links show where they go beside their text; images are not links', async () => {
    const answer = 'Log in at [https://good.example/login](https://evil.example/phish), see <https://plain.example/x> ' +
      'or [mail us](mailto:help@evil.example). ![tracker](https://tracker.example/pixel.png?leak=1)';
    expect(await ask(page, 'Links?', forcedIds(`${answer}<|eot_id|>`))).toBe('done');
    const prose = lastTurn().locator('.prose');
    const links = await prose.locator('a').evaluateAll((as) =>
      as.map((a) => ({ text: a.textContent, href: a.getAttribute('href'), beside: a.nextElementSibling?.tagName === 'SMALL' ? a.nextElementSibling.textContent : null })),
    );
    expect(links).toEqual([
      { text: 'https://good.example/login', href: 'https://evil.example/phish', beside: '(evil.example)' },
      { text: 'https://plain.example/x', href: 'https://plain.example/x', beside: null }, // the text is the URL
      { text: 'mail us', href: 'mailto:help@evil.example', beside: '(help@evil.example)' },
    ]);
    expect(await prose.innerText()).toContain('image: tracker (tracker.example)');
    expect(await prose.locator('img').count()).toBe(0);
  });

  it('"always allow" is listed in the settings and revocable; New chat forgets it and starts a fresh interpreter', async () => {
    const allowed = page.locator('.settings-panel .allowed-list');
    expect(await allowed.locator('li[data-tool]').allInnerTexts()).toEqual([expect.stringMatching(/^brave_search\s*Revoke$/)]); // from the tool-loop test
    await allowed.locator('li[data-tool="brave_search"] button.revoke').click();
    expect(await allowed.locator('li[data-tool]').count()).toBe(0);
    const dialog = page.locator('dialog.confirm-dialog');
    const search = forcedIds('<|python_tag|>brave_search.call(query="Reykjavik")<|eom_id|>', 'Found it.<|eot_id|>');
    const answered = async (answer: 'once' | 'always') => {
      await dialog.waitFor({ state: 'visible' });
      await dialog.locator(`button[data-answer="${answer}"]`).click();
    };
    // Revoked: the next search asks again.
    let done = ask(page, 'Search again.', search);
    await answered('always');
    expect(await done).toBe('done');
    expect(await allowed.locator('li[data-tool]').count()).toBe(1);
    // State planted in this conversation: a variable, and print() patched to lie.
    const plant = forcedIds('<|python_tag|>import builtins\n_real = builtins.print\nbuiltins.print = lambda *a, **k: _real(1337)\nplanted = 1<|eom_id|>', 'Planted.<|eot_id|>');
    expect(await ask(page, 'Plant something.', plant)).toBe('done');
    await page.click('button.new-chat');
    expect(await page.locator('.turn').count()).toBe(0);
    expect(await allowed.locator('li[data-tool]').count()).toBe(0);
    expect(await allowed.innerText()).toMatch(/None: every tool that sends data out asks first/);
    const check = forcedIds('<|python_tag|>print(6 * 7)\nprint("planted" in globals())<|eom_id|>', 'Clean.<|eot_id|>');
    expect(await ask(page, 'Is it clean?', check)).toBe('done');
    expect(await lastTurn().locator('.tool-card[data-tool="code_interpreter"] [data-section="stdout"] pre').evaluate((el) => el.textContent)).toBe('42\nFalse\n');
    // And the web search asks again in the new conversation.
    done = ask(page, 'Search.', search);
    await answered('once');
    expect(await done).toBe('done');
  });

  it('Stop ends code that is running: its interpreter is gone at once and the next code call works', async () => {
    const count = await page.locator('.turn').count();
    await page.evaluate((ids) => window.llamaTest!.forceNextRun(ids), forcedIds('<|python_tag|>spin = True\nwhile spin:\n    pass<|eom_id|>', 'never<|eot_id|>'));
    await page.fill('.composer-input', 'Spin forever.');
    await page.press('.composer-input', 'Enter');
    await page.locator('.turn').nth(count).locator('.tool-card[data-tool="code_interpreter"] .tool-status[data-status="running"]').waitFor();
    const frame = await page.$('iframe');
    await page.click('button.stop');
    await page.waitForFunction((n) => document.querySelectorAll('.turn')[n]?.getAttribute('data-reason') === 'aborted', count);
    expect(await frame!.evaluate((f) => f.isConnected)).toBe(false); // the frame, and the worker in it, are gone
    expect(await ask(page, 'Now something quick.', forcedIds('<|python_tag|>print("after stop")<|eom_id|>', 'Done.<|eot_id|>'))).toBe('done');
    expect(await lastTurn().locator('.tool-card[data-tool="code_interpreter"] [data-section="stdout"] pre').evaluate((el) => el.textContent)).toBe('after stop\n');
  });

  it('made no request outside its own origin', () => {
    expect(outside).toEqual([]);
  });
});
