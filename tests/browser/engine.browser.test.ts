/**
 * The engine in headless Chromium through its real module worker and the comlink boundary: the
 * tiny model on WASM. Prompts are rendered in Node; only ids cross into the page, and the page's own
 * tokenizer (loaded beside the model) decodes them. The backend itself is checked by the conformance
 * suite (conformance.browser.test.ts on WASM, the WebGPU tier in *.webgpu.browser.test.ts).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GenerateResult, LoadedModelInfo, LoadProgress } from '../../src/engine/contract';
import { renderIds } from '../../src/format/render';
import { EOM, EOT, END_OF_TEXT } from '../../src/format/special-tokens';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import { launchBrowser, openPage, startVite } from './harness';

const tokenizer = loadTokenizer();
const PROMPT = renderIds({ messages: [{ role: 'user', content: 'Hello from the browser.' }], date: '11 August 2026' }, tokenizer);
const SPECIALS_BUT_STOPS = Array.from({ length: 256 }, (_, i) => 128000 + i).filter((id) => ![EOM, EOT, END_OF_TEXT].includes(id));

let browser: Browser;
let vite: Awaited<ReturnType<typeof startVite>>;
beforeAll(async () => {
  vite = await startVite();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await vite?.server.close();
});

const pageLogs: string[][] = [];
afterEach(({ task }) => {
  if (task.result?.state === 'fail') console.log(pageLogs.map((l) => l.join('\n')).join('\n---\n'));
});

async function enginePage(): Promise<Page> {
  const { page, logs } = await openPage(browser, `${vite.url}/tests/browser/pages/engine.html`);
  pageLogs.push(logs);
  await page.waitForFunction(() => window.ready === true);
  return page;
}

async function load(page: Page, device: 'webgpu' | 'wasm') {
  return page.evaluate(async (device) => {
    const progress: LoadProgress[] = [];
    const info = await window.engine.load('tiny-llama', { device, onProgress: (p) => progress.push(p) });
    return { info, progress };
  }, device);
}

{
  const device = 'wasm' as const;
  describe(`tiny model on ${device}, through the worker`, () => {
    const STREAM_TOKENS = 24;
    let page: Page;
    let info: LoadedModelInfo;
    beforeAll(async () => {
      page = await enginePage();
      const loaded = await load(page, device);
      info = loaded.info;
      expect(loaded.progress.length).toBeGreaterThan(0);
      const last = loaded.progress.at(-1)!;
      expect(last.totalBytes).toBeGreaterThan(30_000_000);
      expect(last.loadedBytes).toBe(last.totalBytes);
    }, 180_000);
    afterAll(() => page?.close());

    it('loads on the requested device', () => {
      expect(info).toMatchObject({ modelId: 'tiny-llama', backend: 'onnx', device, toolCalling: true, sampling: {} });
    });

    it("the page's tokenizer, loaded beside the model, is the one Node uses", async () => {
      const text = 'Héllo <|eot_id|> 中文 😀';
      const out = await page.evaluate((t) => ({ ids: window.engine.tokenizer!.encode(t), decoded: window.engine.tokenizer!.decode([2028, 374, 128009]) }), text);
      expect(out.ids).toEqual(tokenizer.encode(text));
      expect(out.decoded).toBe('This is<|eot_id|>');
    });

    it('streams tokens in batches that add up to the result', async () => {
      const out = await page.evaluate(
        async ({ tokens, ban, maxTokens }) => {
          const batches: number[][] = [];
          const result = await window.engine.generate(
            { tokens, maxTokens, sampling: { temperature: 0 }, logitsProcessors: [{ type: 'ban', tokens: ban }] },
            (ids) => batches.push(ids),
          );
          return { batches, result };
        },
        { tokens: PROMPT, ban: [...SPECIALS_BUT_STOPS, EOM, EOT, END_OF_TEXT], maxTokens: STREAM_TOKENS },
      );
      expect(out.batches.length).toBeGreaterThan(1);
      expect(out.batches.flat()).toEqual(out.result.tokens);
      expect(out.result).toMatchObject({ stop: 'length', stats: { promptTokens: PROMPT.length, prefilledTokens: PROMPT.length } });
      expect(out.result.tokens).toHaveLength(STREAM_TOKENS);
    });

    it('forced continuations report which terminator fired, and its id', async () => {
      const body = tokenizer.encode(' Forced.');
      for (const [terminator, stop] of [[EOM, 'eom'], [EOT, 'eot'], [END_OF_TEXT, 'end_of_text']] as const) {
        const r: GenerateResult = await page.evaluate(
          ({ tokens, script }) => window.engine.generate({ tokens, logitsProcessors: [{ type: 'force', tokens: script }] }),
          { tokens: PROMPT, script: [...body, terminator] },
        );
        expect(r.stop).toBe(stop);
        expect(r.stopId).toBe(terminator);
        expect(r.tokens).toEqual(body);
      }
    });

    it('an abort mid-generation returns stop "abort"; the next generate works and reuses the cache correctly', async () => {
      const out = await page.evaluate(
        async ({ tokens, ban, more }) => {
          const controller = new AbortController();
          const aborted = await window.engine.generate(
            { tokens, maxTokens: 400, sampling: { temperature: 0 }, logitsProcessors: [{ type: 'ban', tokens: ban }] },
            () => controller.abort(),
            controller.signal,
          );
          const longer = [...tokens, ...aborted.tokens, ...more];
          const request = { tokens: longer, maxTokens: 3, sampling: { temperature: 0 }, logitsProcessors: [{ type: 'ban' as const, tokens: ban }] };
          const reused = await window.engine.generate(request);
          // A prompt that differs from its first id keeps nothing; the same prompt then prefills from scratch.
          await window.engine.generate({ tokens: [9906, 128000], maxTokens: 1 });
          const reset = await window.engine.generate(request);
          return { aborted, reused, reset, promptLength: longer.length };
        },
        { tokens: PROMPT, ban: [...SPECIALS_BUT_STOPS, EOM, EOT, END_OF_TEXT], more: tokenizer.encode(' and more') },
      );
      expect(out.aborted.stop).toBe('abort');
      expect(out.aborted.tokens.length).toBeGreaterThan(0);
      expect(out.aborted.tokens.length).toBeLessThan(400);
      // Reuse: everything fed before (prompt + all emitted but the last) stays; the rest is prefilled.
      expect(out.reused.stats.reusedTokens).toBe(PROMPT.length + out.aborted.tokens.length - 1);
      expect(out.reused.stats.prefilledTokens).toBe(out.promptLength - out.reused.stats.reusedTokens!);
      expect(out.reset.stats.reusedTokens).toBe(0);
      expect(out.reused.tokens).toEqual(out.reset.tokens);
    });

    it('a typed error survives the boundary with its name and code, and the engine stays usable', async () => {
      const out = await page.evaluate(async (tokens) => {
        const errors: Array<{ name: string; code: string; message: string; isEngineError: boolean }> = [];
        for (const attempt of [
          () => window.engine.generate({ tokens: new Array(4096).fill(9906) }),
          () => window.engine.generate({ tokens: [128256] }),
          () => window.engine.load('no-such-model'),
        ]) {
          try {
            await attempt();
          } catch (e) {
            const err = e as { name: string; code: string; message: string };
            errors.push({ name: err.name, code: err.code, message: err.message, isEngineError: e instanceof window.EngineError });
          }
        }
        const after = await window.engine.generate({ tokens, maxTokens: 2, sampling: { temperature: 0 } });
        return { errors, after };
      }, PROMPT);
      expect(out.errors.map((e) => [e.name, e.code, e.isEngineError])).toEqual([
        ['EngineError', 'context_overflow', true],
        ['EngineError', 'invalid_request', true],
        ['EngineError', 'unknown_model', true],
      ]);
      expect(out.errors[0]!.message).toMatch(/context window is 4096/);
      expect(out.after.tokens.length).toBeGreaterThan(0);
    });
  });
}

describe('device "auto"', () => {
  it('picks WASM over a software WebGPU adapter (SwiftShader is correct but far slower)', async () => {
    const page = await enginePage();
    const info = await page.evaluate(() => window.engine.load('tiny-llama', { device: 'auto' }));
    expect(info.device).toBe('wasm');
    await page.close();
  }, 180_000);
});
