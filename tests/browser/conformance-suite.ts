/**
 * Registers the backend conformance checks as tests against the onnx backend in Chromium on one
 * device (tests/browser/pages/conformance-page.ts runs them in the page); `more` adds tests on the
 * same loaded page.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKS } from '../conformance/backend-checks';
import { openPage, startBrowserStack, type BrowserStack } from './harness';
import { suiteStack } from './suite-stack';

export function conformanceSuite(device: 'wasm' | 'webgpu', options: { decode: number; checks?: string[]; more?: (page: () => Page) => void }): void {
  const stack = suiteStack<BrowserStack>(startBrowserStack);
  let page: Page;
  let logs: string[] = [];
  describe(`backend conformance: onnx on ${device} in Chromium`, () => {
    beforeAll(async () => {
      ({ page, logs } = await openPage(stack.browser, `${stack.vite.url}/tests/browser/pages/conformance.html`));
      await page.waitForFunction(() => window.ready === true);
      const info = await page.evaluate(({ device, decode }) => window.loadSubject(device, decode), { device, decode: options.decode });
      expect(info.device).toBe(device);
    }, 180_000);
    afterAll(() => page?.close());
    for (const name of options.checks ?? Object.keys(CHECKS)) {
      it(name, async () => {
        const failure = await page.evaluate((n) => window.runCheck(n), name);
        if (failure) console.log(logs.join('\n'));
        expect(failure).toBeNull();
      }, 180_000);
    }
    options.more?.(() => page);
  });
}
