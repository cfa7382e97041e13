/**
 * FORMAT.md's worked example end to end in Node: the tiny model (the model's side forced), the real
 * parser and loop, the real brave_search tool through the real proxy against the loopback fake.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolProxyServer } from '../server/tool-proxy';
import { braveSearchTool } from '../tools/brave-search';
import { loadTokenizer } from '../format/tokenizer/load-node';
import { createNodeEngine } from '../../worker/create-node-engine';
import { startBraveWolframFake, type BraveWolframFake } from '../../tests/fakes/brave-wolfram-fake';
import {
  WORKED_EXAMPLE_CALL, WORKED_EXAMPLE_HIT, WORKED_EXAMPLE_PROMPT, WORKED_EXAMPLE_QUESTION, workedExampleShape,
} from '../../tests/fixtures/worked-example';
import { runAgent } from './run-agent';
import { collect, ofType } from './collect-events';
import { forceSteps } from '../../tests/support/force-steps';

const tokenizer = loadTokenizer();
let fake: BraveWolframFake;
let proxy: Awaited<ReturnType<typeof startToolProxyServer>>;
beforeAll(async () => {
  fake = await startBraveWolframFake();
  fake.braveAnswer = () => [WORKED_EXAMPLE_HIT];
  proxy = await startToolProxyServer(fake.proxyOptions());
});
afterAll(async () => {
  await proxy?.close();
  await fake?.close();
});

it('the second prompt is FORMAT.md\'s byte for byte, and it prefills only the appended ids', async () => {
  const engine = createNodeEngine();
  await engine.load('tiny-llama');
  const events = await collect(
    runAgent({
      engine,
      tokenizer,
      tools: [braveSearchTool({ proxyBase: proxy.toolsBase, shape: workedExampleShape })],
      conversation: { date: '11 August 2026', messages: [{ role: 'user', content: WORKED_EXAMPLE_QUESTION }] },
      confirm: async () => true,
      logitsProcessors: forceSteps([`${WORKED_EXAMPLE_CALL}<|eom_id|>`, 'About 139,000 people.<|eot_id|>'], tokenizer),
    }),
  );
  const [first, second] = ofType(events, 'step-finish');
  expect(first!.stop).toBe('eom');
  expect(second!.prompt.text).toBe(WORKED_EXAMPLE_PROMPT);
  const emitted = first!.prompt.ids.length + tokenizer.encode('brave_search.call(query="Reykjavik population")').length + 1;
  expect(second!.stats.reusedTokens).toBe(emitted);
  expect(second!.stats.prefilledTokens).toBe(second!.prompt.ids.length - emitted);
  expect(ofType(events, 'finish')[0]).toMatchObject({ reason: 'done', text: 'About 139,000 people.' });
  // The proxy sent the key upstream as a header; the query arrived intact.
  const upstream = fake.requests.find((r) => r.service === 'brave')!;
  expect(upstream.query.q).toBe('Reykjavik population');
  expect(upstream.headers['x-subscription-token']).toBe(fake.braveKey);
  await engine.unload();
});

describe('proxy failures reach the model as error results; the loop goes on', () => {
  const cases: Record<string, { mode: 'unauthorized' | 'server-error' | 'slow'; result: RegExp }> = {
    'proxy 401': { mode: 'unauthorized', result: /"error": ".*API key was rejected/ },
    'proxy 500': { mode: 'server-error', result: /"error": ".*upstream error/ },
    'proxy timeout': { mode: 'slow', result: /^\{"error": "Brave Search did not answer within 300 ms", "status": 504\}$/ },
  };
  for (const [name, { mode, result }] of Object.entries(cases)) {
    it(name, async () => {
      const slowProxy = await startToolProxyServer({ ...fake.proxyOptions(), timeoutMs: 300 });
      fake.setMode('brave', mode);
      const engine = createNodeEngine();
      await engine.load('tiny-llama');
      try {
        const events = await collect(
          runAgent({
            engine,
            tokenizer,
            tools: [braveSearchTool({ proxyBase: slowProxy.toolsBase })],
            conversation: { date: '11 August 2026', messages: [{ role: 'user', content: WORKED_EXAMPLE_QUESTION }] },
            confirm: async () => true,
            logitsProcessors: forceSteps([`${WORKED_EXAMPLE_CALL}<|eom_id|>`, 'The search failed.<|eot_id|>'], tokenizer),
          }),
        );
        const [toolResult] = ofType(events, 'tool-result');
        expect(toolResult).toMatchObject({ name: 'brave_search', isError: true });
        expect(toolResult!.content).toMatch(result);
        expect(toolResult!.content).not.toContain(fake.braveKey);
        expect(ofType(events, 'finish')[0]).toMatchObject({ reason: 'done', text: 'The search failed.' });
      } finally {
        fake.setMode('brave', 'ok');
        await slowProxy.close();
        await engine.unload();
      }
    });
  }
});
