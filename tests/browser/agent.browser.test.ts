/**
 * FORMAT.md's worked example end to end in headless Chromium: the loop on the page's main thread,
 * the tiny model in the real engine worker (WASM), the real brave_search tool through the vite
 * server's proxy against the loopback fake.
 */
import { beforeAll, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events';
import { scriptIds } from '../../src/agent/scripted-output';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import { WORKED_EXAMPLE_CALL, WORKED_EXAMPLE_HIT, WORKED_EXAMPLE_PROMPT, WORKED_EXAMPLE_QUESTION } from '../fixtures/worked-example';
import { openPage, startProxiedBrowser } from './harness';
import { suiteStack } from './suite-stack';

const tokenizer = loadTokenizer();
const stack = suiteStack(startProxiedBrowser);
beforeAll(() => {
  stack.fake.braveAnswer = () => [WORKED_EXAMPLE_HIT];
});

it("the second prompt is FORMAT.md's byte for byte, and its prefill is only the appended ids", async () => {
  const { page, logs } = await openPage(stack.browser, `${stack.vite.url}/tests/browser/pages/agent.html`);
  try {
    await page.waitForFunction(() => window.ready === true);
    await page.evaluate(() => window.engine.load('tiny-llama', { device: 'wasm' }));
    const forced = [scriptIds(`${WORKED_EXAMPLE_CALL}<|eom_id|>`, tokenizer), scriptIds('About 139,000 people.<|eot_id|>', tokenizer)];
    const events: AgentEvent[] = await page.evaluate(
      (run) => window.runWorkedExample(run),
      { question: WORKED_EXAMPLE_QUESTION, date: '11 August 2026', forced },
    );
    const steps = events.filter((e): e is Extract<AgentEvent, { type: 'step-finish' }> => e.type === 'step-finish');
    expect(steps).toHaveLength(2);
    expect(steps[1]!.prompt.text).toBe(WORKED_EXAMPLE_PROMPT);
    const cached = steps[0]!.prompt.ids.length + forced[0]!.length - 1; // the prompt and the call, not its eom
    expect(steps[1]!.stats).toMatchObject({ reusedTokens: cached, prefilledTokens: steps[1]!.prompt.ids.length - cached });
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'done', text: 'About 139,000 people.' });
    const upstream = stack.fake.requests.filter((r) => r.service === 'brave');
    expect(upstream).toHaveLength(1);
    expect(upstream[0]!.headers['x-subscription-token']).toBe(stack.fake.braveKey);
  } catch (e) {
    console.log(logs.join('\n'));
    throw e;
  }
}, 120_000);
