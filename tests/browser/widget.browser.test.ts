/**
 * The `<llama-chat>` widget as shipped: the library build (one ES module plus the engine worker's
 * chunks), served from a second loopback origin with CORS, embedded in the demo host page served
 * from the first. The widget starts its worker through a same-origin blob module, loads the tiny
 * model and Pyodide from its own origin, runs a host-registered tool and answers. Host styles do
 * not reach inside it and its styles do not reach the host.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { widgetBuildConfig } from '../../vite.widget.config';
import type { TestLlamaChatElement } from './hooks/widget-test-entry';
import { hostCspText, type HostCsp } from '../../src/widget/host-csp';
import { launchBrowser, ROOT } from './harness';
import { seriousViolations } from './pages/a11y';
import { OFFLINE_CASES } from '../../scripts/micro-llama/offline-cases';
import { blockOutside, forcedIds, screenshot, startStaticServer, type StaticServer } from './pages/ui-support';

const outDir = mkdtempSync(join(tmpdir(), 'llama-widget-build-'));
let widgetOrigin: StaticServer;
let hostOrigin: StaticServer;
let browser: Browser;
let page: Page;
let outside: string[];
const logs: string[] = [];

/** The demo host page, pointing at the widget on the other origin; `?nowidget` leaves the widget's script out. */
function hostPage(withWidget: boolean): string {
  const html = readFileSync(join(ROOT, 'src/widget/demo.html'), 'utf8');
  const script = '<script type="module" src="./llama-chat.js"></script>';
  if (!html.includes(script)) throw new Error('demo.html no longer loads ./llama-chat.js');
  return html.replace(script, withWidget ? `<script type="module" src="${widgetOrigin.url}/llama-chat.js"></script>` : '');
}

/** Computed styles of the host's probe elements (named like the widget's internals). */
const hostProbeStyles = (p: Page) =>
  p.evaluate(() =>
    [...document.querySelectorAll('.probe, p.intro, h1')].map((el) => {
      const s = getComputedStyle(el);
      return [s.fontFamily, s.fontSize, s.color, s.backgroundColor, s.outlineStyle, s.borderTopStyle, s.padding, s.margin, s.lineHeight].join('|');
    }),
  );

/** Computed styles of elements inside the widget's shadow root. */
const widgetStyles = (p: Page) =>
  p.evaluate(() => {
    const root = document.querySelector('llama-chat')!.shadowRoot!;
    const pick = ['.llama-root', '.widget-header h2', 'button.send', '.composer-input', '.msg.user .bubble', '.prose', '.tool-card', '.tool-card pre'];
    return pick.map((sel) => {
      const el = root.querySelector(sel);
      if (!el) return `${sel}: missing`;
      const s = getComputedStyle(el);
      return [sel, s.fontFamily, s.fontSize, s.color, s.backgroundColor, s.letterSpacing, s.lineHeight, s.outlineStyle, s.borderTopStyle, s.borderTopWidth, s.textTransform].join('|');
    });
  });

/** Loads the tiny model on WASM in the page's widget (test hooks on); resolves to load()'s info. */
const loadTinyModel = (p: Page) =>
  p.evaluate(async () => {
    const chat = document.querySelector('llama-chat')!;
    chat.setAttribute('model', 'tiny-llama');
    chat.setAttribute('device', 'wasm');
    return chat.load();
  });

/** Forces the next run's steps, types `question` into the widget's own box and resolves to its llama-answer detail. */
async function askForced(p: Page, question: string, ...steps: string[]): Promise<{ text: string; reason: string }> {
  const answered = p.evaluate(
    (ids) =>
      new Promise<{ text: string; reason: string }>((resolve) => {
        const chat = document.querySelector('llama-chat') as TestLlamaChatElement;
        chat.addEventListener('llama-answer', (e) => resolve((e as CustomEvent).detail), { once: true });
        void chat.forceNextRun(ids);
      }),
    forcedIds(...steps),
  );
  // Playwright's CSS selectors pierce open shadow roots.
  await p.locator('llama-chat .composer-input').fill(question);
  await p.locator('llama-chat .composer-input').press('Enter');
  return answered;
}

beforeAll(async () => {
  const t0 = performance.now();
  // The test entry: the product element on the test engine worker (forced runs).
  await build({ ...widgetBuildConfig({ outDir, copyAssets: false, entry: join(ROOT, 'tests/browser/hooks/widget-test-entry.ts') }), logLevel: 'error' });
  console.log(`widget: library build in ${Math.round(performance.now() - t0)} ms`);
  widgetOrigin = await startStaticServer({
    cors: true,
    mounts: [
      ['/models/', join(ROOT, 'models')],
      ['/ort/', join(ROOT, 'public/ort')],
      ['/pyodide/', join(ROOT, 'public/pyodide')],
      ['/local-search/', join(ROOT, 'public/local-search')],
      ['/', outDir],
    ],
  });
  hostOrigin = await startStaticServer({ mounts: [], pages: { '/': () => hostPage(true), '/nowidget': () => hostPage(false) } });
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await widgetOrigin?.close();
  await hostOrigin?.close();
  rmSync(outDir, { recursive: true, force: true });
});
afterEach(({ task }) => {
  if (task.result?.state === 'fail') console.log(logs.join('\n'));
});

describe('<llama-chat> from a second origin', () => {
  let hostBefore: string[];
  let context: BrowserContext;

  it("the library build's entry module defines the element", () => {
    const files = readFileSync(join(outDir, 'llama-chat.js'), 'utf8');
    expect(files).toMatch(/customElements\.define\(`llama-chat`|customElements\.define\("llama-chat"/);
  });

  it('completes a conversation with a tool the host registered, and reports it through events', async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    outside = await blockOutside(context, [hostOrigin.url, widgetOrigin.url]);
    const bare = await context.newPage();
    await bare.goto(`${hostOrigin.url}/nowidget`);
    hostBefore = await hostProbeStyles(bare);
    await bare.close();

    page = await context.newPage();
    page.setDefaultTimeout(60_000);
    page.on('console', (m) => logs.push(`[${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => logs.push(`[pageerror] ${e.message}`));
    await page.goto(`${hostOrigin.url}/`);
    await page.waitForFunction(() => customElements.get('llama-chat') !== undefined);
    expect(await loadTinyModel(page)).toMatchObject({ modelId: 'tiny-llama', device: 'wasm' });
    const answered = await askForced(page, 'When are you open on Sunday?', '{"name": "get_opening_hours", "parameters": {"day": "Sunday"}}<|eot_id|>', 'On Sunday we are open from **07:00 to 12:00**.<|eot_id|>');
    expect(answered).toEqual({ text: 'On Sunday we are open from **07:00 to 12:00**.', reason: 'done' });

    const card = page.locator('llama-chat .tool-card[data-tool="get_opening_hours"]');
    expect(await card.locator('.tool-status').innerText()).toMatch(/^done/);
    expect(await card.locator('.tool-result').innerText()).toContain('"close": "12:00"');
    expect(await page.locator('llama-chat .prose strong').innerText()).toBe('07:00 to 12:00');
    // The host page's own event log, fed by the widget's events.
    await page.waitForFunction(() => (document.querySelector('#events')?.textContent ?? '').includes('answer (done)'));
    const events = await page.locator('#events li').allInnerTexts();
    expect(events).toEqual(expect.arrayContaining(['load: loaded', 'tool call: get_opening_hours', 'answer (done): On Sunday we are open from **07:00 to 12:00**.']));
    expect(events.find((e) => e.startsWith('tool result:'))).toContain('"open": "07:00"');

    // Everything the widget loads comes from its own origin; the host served only its page.
    expect(hostOrigin.requests.filter((p) => p !== '/' && p !== '/nowidget' && p !== '/favicon.ico')).toEqual([]);
    expect(widgetOrigin.requests).toEqual(expect.arrayContaining(['/llama-chat.js', '/models/llama-3.1-tokenizer/tokenizer.json', '/ort/ort-wasm-simd-threaded.asyncify.wasm.gz']));
    // onnxruntime-web's runtime arrives gzipped (6.6 MB) and is inflated in the worker; the 26.9 MB file is never asked for.
    expect(widgetOrigin.requests.filter((p) => p.startsWith('/ort/') && p.endsWith('.wasm'))).toEqual([]);
    // The engine worker (here the test entry's) comes from the widget's origin too.
    expect(widgetOrigin.requests.some((p) => /^\/assets\/engine-test\.worker-.*\.js$/.test(p))).toBe(true);
    // The MCP client is a chunk of its own, loaded only when the element has an MCP server.
    expect(widgetOrigin.requests.filter((p) => /mcp-sdk/.test(p))).toEqual([]);
    expect(outside).toEqual([]);
    await page.locator('llama-chat').scrollIntoViewIfNeeded();
    await screenshot(page, 'widget-in-host');
  }, 120_000);

  it("the host's styles do not change the widget", async () => {
    const withHostStyles = await widgetStyles(page);
    expect(withHostStyles.every((s) => !s.endsWith('missing'))).toBe(true);
    expect(withHostStyles[0]).toMatch(/system-ui/);
    expect(withHostStyles.join('\n')).not.toMatch(/Georgia|dashed|rgb\(255, 105, 180\)/); // serif, outlines, hotpink
    await page.evaluate(() => ((document.querySelector('#host-styles') as HTMLStyleElement).sheet!.disabled = true));
    const withoutHostStyles = await widgetStyles(page);
    await page.evaluate(() => ((document.querySelector('#host-styles') as HTMLStyleElement).sheet!.disabled = false));
    expect(withHostStyles).toEqual(withoutHostStyles);
  });

  it('the header names the loaded model with its size; New chat starts over', async () => {
    const shadow = (sel: string) => page.locator(`llama-chat ${sel}`);
    expect(await shadow('.widget-model').innerText()).toBe('Tiny test model (random weights) · 33.2 MB · wasm');
    expect(await shadow('.turn').count()).toBe(1);
    await shadow('button.new-chat').click();
    expect(await shadow('.turn').count()).toBe(0);
    expect(await page.evaluate(() => document.querySelector('llama-chat')!.messages)).toEqual([]);
    expect(await shadow('.empty-state').innerText()).toMatch(/Say something/); // the tiny model's example
  });

  it("the host's documents answer search in the page with search-and-math=\"local\": no proxy, no confirmation", async () => {
    const held = await page.evaluate(() => {
      const chat = document.querySelector('llama-chat')!;
      chat.setAttribute('tools', 'brave_search');
      chat.setAttribute('search-and-math', 'local');
      return chat.addDocuments([{ title: 'Harbour café — opening hours', url: 'https://host.example/hours', text: 'The harbour café opens at 07:00 on Sundays.' }]);
    });
    expect(held).toBe(1);
    const answered = await askForced(page, 'When do you open on Sunday?', '<|python_tag|>brave_search.call(query="harbour café Sunday opening")<|eom_id|>', 'At 07:00.<|eot_id|>');
    expect(answered).toEqual({ text: 'At 07:00.', reason: 'done' });
    const card = await page.locator('llama-chat .tool-card[data-tool="brave_search"] .tool-result').innerText();
    expect(card).toContain('results from local index');
    expect(card).toContain('The harbour café opens at 07:00 on Sundays.');
    expect(outside).toEqual([]);
    await page.evaluate(() => {
      const chat = document.querySelector('llama-chat')!;
      chat.removeAttribute('tools');
      chat.removeAttribute('search-and-math');
      chat.clear();
    });
  });

  it('before its model is loaded: Send is disabled and says why, naming the model and its size', async () => {
    const fresh = await context.newPage();
    try {
      await fresh.goto(`${hostOrigin.url}/`);
      await fresh.waitForFunction(() => customElements.get('llama-chat') !== undefined);
      // No model attribute: the recommendation for this device, named once the capability report is in.
      await fresh.waitForFunction(() => /·/.test(document.querySelector('llama-chat')!.shadowRoot!.querySelector('.widget-model')!.textContent ?? ''));
      const header = await fresh.locator('llama-chat .widget-model').innerText();
      expect(header).toBe('Micro Llama (offline demo) · 106 MB');
      // The heading keeps a readable width: the buttons wrap below it, never squeeze it to a column of letters.
      const lines = await fresh.locator('llama-chat').evaluate((el) => {
        const root = el.shadowRoot!;
        const linesOf = (sel: string) => {
          const e = root.querySelector(sel)!;
          return Math.round(e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight));
        };
        return { title: linesOf('.widget-header h2'), model: linesOf('.widget-model') };
      });
      expect(lines).toEqual({ title: 1, model: 1 });
      await screenshot(fresh, 'widget-header-before-load');
      expect(await fresh.locator('llama-chat button.load').innerText()).toBe('Load Micro Llama (offline demo)');
      expect(await fresh.locator('llama-chat button.send').isDisabled()).toBe(true);
      expect(await fresh.locator('llama-chat .composer-note').innerText()).toBe('Press Load model first (Micro Llama (offline demo) · 106 MB).');
      await fresh.locator('llama-chat .composer-input').fill('Hello?');
      await fresh.locator('llama-chat .composer-input').press('Enter');
      expect(await fresh.locator('llama-chat .turn').count()).toBe(0);
      expect(await seriousViolations(fresh, 'llama-chat')).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it("the Micro Llama demo answers the widget demo's own question unforced, with the host's get_opening_hours", async () => {
    const c = OFFLINE_CASES.find((x) => x.tools === 'widget')!;
    const fresh = await context.newPage();
    try {
      await fresh.goto(`${hostOrigin.url}/`);
      await fresh.waitForFunction(() => customElements.get('llama-chat') !== undefined);
      await fresh.evaluate(async () => {
        const chat = document.querySelector('llama-chat')!;
        chat.setAttribute('model', 'micro-llama');
        chat.setAttribute('device', 'wasm');
        await chat.load();
      });
      const answered = fresh.evaluate(
        () => new Promise<{ text: string; reason: string }>((resolve) => document.querySelector('llama-chat')!.addEventListener('llama-answer', (e) => resolve((e as CustomEvent).detail), { once: true })),
      );
      await fresh.locator('llama-chat .composer-input').fill(c.question);
      await fresh.locator('llama-chat .composer-input').press('Enter');
      const answer = await answered;
      expect(answer.reason).toBe('done');
      for (const v of c.answer()) expect(answer.text).toContain(v);
      const events = await fresh.locator('#events').innerText();
      expect(events).toContain(`tool call: ${c.tool}`);
      expect(events).toContain('tool result: {"day": "Monday", "open": "07:00", "close": "18:00"}');
      expect(outside).toEqual([]);
    } finally {
      await fresh.close();
    }
  }, 180_000);

  it('axe-core finds no serious or critical violation in the widget with a conversation', async () => {
    await askForced(page, 'Print 42.', '<|python_tag|>print(42)<|eom_id|>', 'It printed **42**.<|eot_id|>');
    expect(await seriousViolations(page, 'llama-chat')).toEqual([]);
  });

  it("the widget's styles do not change the host", async () => {
    expect(await hostProbeStyles(page)).toEqual(hostBefore);
    // Nothing was added to the host document's styles: its one <style> is the host's own.
    expect(await page.evaluate(() => [document.styleSheets.length, document.adoptedStyleSheets.length, document.querySelectorAll('style, link[rel=stylesheet]').length])).toEqual([1, 0, 1]);
  });
});

describe('<llama-chat> on a host whose Content-Security-Policy allows only what cspSources() lists', () => {
  const hostPage = `<!doctype html><html lang="en"><head><meta charset="UTF-8"><title>strict host</title></head><body>
    <llama-chat heading="Strict host" tools="code_interpreter"></llama-chat>
    <script type="module" src="WIDGET/llama-chat.js"></script></body></html>`;
  /** Read by the server at each request: empty while the sources are read, then the strict policy. */
  const headers: Record<string, string> = {};
  let strictHost: StaticServer;
  beforeAll(async () => {
    strictHost = await startStaticServer({ mounts: [], pages: { '/': () => hostPage.replace('WIDGET', widgetOrigin.url) }, pageHeaders: headers });
  });
  afterAll(() => strictHost?.close());

  it('styles itself, loads the model, runs Python and answers, with no violation reported by the page or its workers', async () => {
    const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    try {
      const probe = await context.newPage();
      await probe.goto(`${strictHost.url}/`);
      await probe.waitForFunction(() => customElements.get('llama-chat') !== undefined);
      const sources: HostCsp = await probe.evaluate(() => document.querySelector('llama-chat')!.cspSources());
      await probe.close();
      expect(sources['script-src']).toEqual([widgetOrigin.url, "'wasm-unsafe-eval'", expect.stringMatching(/^'sha256-[A-Za-z0-9+/]{43}='$/)]);
      headers['Content-Security-Policy'] = `default-src 'none'; ${hostCspText(sources)}`;

      const strict = await context.newPage();
      strict.setDefaultTimeout(60_000);
      // Violations in the page and its workers. (The sandbox frame's would not reach this log: a refused
      // sandbox shows as the Python run failing, which the tool card's STDOUT below rules out.)
      const cdp = await context.newCDPSession(strict);
      await cdp.send('Log.enable');
      const refused: string[] = [];
      cdp.on('Log.entryAdded', ({ entry }) => {
        logs.push(`[strict ${entry.source}] ${entry.text}`);
        if (/Content Security Policy/i.test(entry.text)) refused.push(entry.text);
      });
      strict.on('console', (m) => logs.push(`[strict ${m.type()}] ${m.text()}`));
      strict.on('pageerror', (e) => logs.push(`[strict pageerror] ${e.message}`));
      const response = await strict.goto(`${strictHost.url}/`);
      expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
      await strict.waitForFunction(() => customElements.get('llama-chat') !== undefined);
      const font = await strict.evaluate(() => getComputedStyle(document.querySelector('llama-chat')!.shadowRoot!.querySelector('.llama-root')!).fontFamily);
      expect(font).toMatch(/system-ui/);
      expect(await loadTinyModel(strict)).toMatchObject({ modelId: 'tiny-llama', device: 'wasm' });
      const answer = 'Six times seven is **42**:\n\n```python\nprint(6 * 7)\n```';
      const answered = await askForced(strict, 'What is six times seven?', '<|python_tag|>print(6 * 7)<|eom_id|>', `${answer}<|eot_id|>`);
      expect(answered).toEqual({ text: answer, reason: 'done' });
      expect(await strict.locator('llama-chat .tool-card[data-tool="code_interpreter"] .tool-result').innerText()).toMatch(/^STDOUT\s+42\s*$/);
      // The highlighter is its own chunk, loaded from the widget's origin under the same policy.
      await strict.locator('llama-chat .prose code.hljs .hljs-built_in').waitFor();
      expect(refused).toEqual([]);
      // Model code has no channel to the widget's own origin either (its Pyodide files are there).
      const lastCode = () => strict.locator('llama-chat .tool-card[data-tool="code_interpreter"] .tool-result').last().innerText();
      const leak = `<|python_tag|>import js\nplanted = 1\ntry:\n    await js.fetch("${widgetOrigin.url}/pyodide/leak?d=secret")\n    print("sent")\nexcept Exception:\n    print("refused")<|eom_id|>`;
      await askForced(strict, 'Send it home.', leak, 'It was refused.<|eot_id|>');
      expect(await lastCode()).toMatch(/^STDOUT\s+refused\s*$/);
      expect(widgetOrigin.requests.filter((p) => p.includes('leak'))).toEqual([]);
      // clear() starts a new conversation with a fresh interpreter.
      await strict.evaluate(() => document.querySelector('llama-chat')!.clear());
      await askForced(strict, 'Anything left?', '<|python_tag|>print("planted" in globals())<|eom_id|>', 'Nothing.<|eot_id|>');
      expect(await lastCode()).toMatch(/^STDOUT\s+False\s*$/);
    } finally {
      await context.close();
    }
  }, 100_000);

  it('a host that refuses the engine worker: load() ends at once with worker_failed, shown in plain words', async () => {
    const sources: HostCsp = { 'script-src': [widgetOrigin.url], 'worker-src': ['blob:'], 'connect-src': [widgetOrigin.url] }; // the worker's own script refused
    headers['Content-Security-Policy'] = `default-src 'none'; ${hostCspText(sources)}`;
    const context = await browser.newContext();
    try {
      const refused = await context.newPage();
      await refused.goto(`${strictHost.url}/`);
      await refused.waitForFunction(() => customElements.get('llama-chat') !== undefined);
      const outcome = await refused.evaluate(async () => {
        const chat = document.querySelector('llama-chat')!;
        const error = new Promise<{ code: string }>((resolve) => chat.addEventListener('llama-error', (e) => resolve((e as CustomEvent).detail.error), { once: true }));
        chat.setAttribute('model', 'tiny-llama');
        chat.setAttribute('device', 'wasm');
        const info = await chat.load();
        return { info, code: (await error).code, shown: chat.shadowRoot!.querySelector('.widget-status')!.textContent };
      });
      expect(outcome).toEqual({ info: null, code: 'worker_failed', shown: expect.stringContaining('The engine could not start in this page.') });
    } finally {
      await context.close();
    }
  }, 30_000);
});
