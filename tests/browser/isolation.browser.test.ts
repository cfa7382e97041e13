/**
 * Cross-origin isolation (COOP same-origin + COEP), which gives onnxruntime-web its WASM threads, with
 * both embedder policies the servers can send: the page and its workers are isolated, WASM gets every
 * core (up to 4), the model loads and generates, the Python sandbox (an opaque-origin frame and its
 * worker) still runs, and a CORS-readable cross-origin host (as the model hosts are) still answers
 * fetch(). What differs: a no-CORS cross-origin image without CORP loads only under `credentialless`.
 */
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openPage, ROOT, startVite } from './harness';
import { startStaticServer, type StaticServer } from './pages/ui-support';

let browser: Browser;
let otherHost: StaticServer;
beforeAll(async () => {
  browser = await launchBrowser();
  // A second origin standing in for a model host: CORS-readable files, and an image without CORP.
  otherHost = await startStaticServer({ cors: true, mounts: [['/', join(ROOT, 'public')]] });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await otherHost?.close();
});

for (const policy of ['require-corp', 'credentialless'] as const) {
  describe(`COEP ${policy}`, () => {
    let vite: Awaited<ReturnType<typeof startVite>>;
    beforeAll(async () => {
      const saved = process.env.LLAMA_COEP;
      process.env.LLAMA_COEP = policy;
      try {
        vite = await startVite();
      } finally {
        if (saved === undefined) delete process.env.LLAMA_COEP;
        else process.env.LLAMA_COEP = saved;
      }
    }, 120_000);
    afterAll(() => vite?.server.close());

    it('isolates the page: WASM gets the cores, the model loads and generates, a CORS host still answers', async () => {
      const { page } = await openPage(browser, `${vite.url}/tests/browser/pages/engine.html`);
      await page.waitForFunction(() => window.ready === true);
      const out = await page.evaluate(async (other) => {
        const caps = await window.engine.capabilities();
        await window.engine.load('tiny-llama', { device: 'wasm' });
        const r = await window.engine.generate({ tokens: [128000, 9906, 1917], maxTokens: 3, sampling: { temperature: 0 } });
        const cors = await fetch(`${other}/favicon.svg`).then((res) => res.status, (e: unknown) => String(e));
        const image = await new Promise<boolean>((resolve) => {
          const img = new Image();
          img.onload = () => resolve(true);
          img.onerror = () => resolve(false);
          img.src = `${other}/favicon.svg`;
        });
        return { isolated: crossOriginIsolated, wasm: caps.wasm, cores: navigator.hardwareConcurrency, generated: r.tokens.length, cors, image };
      }, otherHost.url.replace('127.0.0.1', 'localhost'));
      expect(out.isolated).toBe(true);
      expect(out.wasm).toEqual({ threads: Math.min(4, out.cores), crossOriginIsolated: true });
      expect(out.wasm!.threads).toBeGreaterThan(1);
      expect(out.generated).toBe(3);
      expect(out.cors).toBe(200);
      expect(out.image).toBe(policy === 'credentialless');
      await page.close();
    }, 120_000);

    it('the Python sandbox (opaque-origin frame, its worker, Pyodide from this origin) still runs', async () => {
      const { page } = await openPage(browser, `${vite.url}/tests/browser/pages/sandbox.html`);
      await page.waitForFunction(() => window.ready === true);
      const r = await page.evaluate(() => window.sandbox.run('print(6 * 7)'));
      expect(r.stdout).toBe('42\n');
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
      await page.close();
    }, 120_000);
  });
}
