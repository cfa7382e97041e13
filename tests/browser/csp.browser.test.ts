/**
 * A custom tool on a host page whose Content-Security-Policy forbids 'unsafe-eval' (it allows only
 * 'wasm-unsafe-eval', which the model runtime needs): the tool's schema compiles and checks arguments.
 */
import { expect, it } from 'vitest';
import { openPage, startBrowserStack } from './harness';
import type { CspOutcome } from './pages/csp-page';
import { suiteStack } from './suite-stack';

const CSP = "script-src 'self' 'wasm-unsafe-eval'";

const stack = suiteStack(startBrowserStack);

it("a custom tool's schema compiles and checks arguments without 'unsafe-eval'", async () => {
  const { page, logs } = await openPage(stack.browser, `${stack.vite.url}/tests/browser/pages/csp.html`, { 'Content-Security-Policy': CSP });
  try {
    await page.waitForFunction(() => window.ready === true);
    const outcome: CspOutcome = await page.evaluate(() => window.cspOutcome);
    expect(outcome).toEqual({
      codeFromStrings: 'EvalError', // the policy is in force
      refused: 'invalid arguments for get_weather: parameters.city: is required; parameters: has an unexpected property "extra"; parameters.days: must be <= 7',
      accepted: 'sunny in Paris',
    });
  } catch (error) {
    console.log(logs.join('\n'));
    throw error;
  } finally {
    await page.close();
  }
});
