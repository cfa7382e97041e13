/**
 * The micro model unforced, end to end, on one engine (src/agent/micro-e2e*.test.ts): the trained micro
 * model (greedy) decides to call a tool, the real loop runs the real tool — brave_search and
 * wolfram_alpha through the real proxy against the loopback fake, code_interpreter on Pyodide — and
 * the model answers from the result, ending with eot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MICRO_E2E_CASES, MICRO_E2E_RENDER_OPTIONS, type MicroE2eCase } from '../../scripts/micro-llama/e2e-cases';
import { collect, ofType } from '../../src/agent/collect-events';
import { runAgent } from '../../src/agent/run-agent';
import type { ModelRef } from '../../src/engine/contract';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import { startToolProxyServer } from '../../src/server/tool-proxy';
import { braveSearchTool } from '../../src/tools/brave-search';
import { codeInterpreterTool } from '../../src/tools/code-interpreter';
import { wolframAlphaTool } from '../../src/tools/wolfram-alpha';
import { createNodeEngine } from '../../worker/create-node-engine';
import { startBraveWolframFake, type BraveWolframFake } from '../fakes/brave-wolfram-fake';
import { NodePythonSandbox } from './node-python-sandbox';

const byName = (name: string) => MICRO_E2E_CASES.find((c) => c.name === name)!;

/** Registers the cases on `engineName`, whose model `model()` names once beforeAll has run `before`. */
export function describeMicroE2e(engineName: string, model: () => ModelRef, hooks: { before?: () => Promise<void>; after?: () => Promise<void> } = {}): void {
  const tokenizer = loadTokenizer();
  const engine = createNodeEngine();
  let fake: BraveWolframFake;
  let proxy: Awaited<ReturnType<typeof startToolProxyServer>>;
  const sandbox = new NodePythonSandbox();

  beforeAll(async () => {
    fake = await startBraveWolframFake();
    proxy = await startToolProxyServer(fake.proxyOptions());
    await hooks.before?.();
    await Promise.all([engine.load(model()), sandbox.warm()]);
  }, 120_000);
  afterAll(async () => {
    await engine.unload();
    await hooks.after?.();
    await proxy?.close();
    await fake?.close();
  });

  /** The fake answers this case's query with the case's result, as the real services would shape it. */
  function answerWith(c: MicroE2eCase): void {
    fake.braveAnswer = (q) => (typeof c.result === 'object' && c.result && q === c.call?.arguments.query ? (c.result.results as never) : undefined);
    fake.wolframAnswer = (input) => (typeof c.result === 'string' && input === c.call?.arguments.query ? c.result : undefined);
  }

  async function ask(c: MicroE2eCase) {
    answerWith(c);
    return collect(
      runAgent({
        engine,
        tokenizer,
        tools: [braveSearchTool({ proxyBase: proxy.toolsBase }), wolframAlphaTool({ proxyBase: proxy.toolsBase }), codeInterpreterTool(sandbox)],
        conversation: { date: MICRO_E2E_RENDER_OPTIONS.date, messages: [{ role: 'user', content: c.question }] },
        sampling: { temperature: 0 },
        confirm: async () => true,
        model: engine.model,
      }),
    );
  }

  describe(`the micro model, unforced, through the real loop and tools, on ${engineName}`, () => {
    for (const name of ['population (brave_search)', 'arithmetic (wolfram_alpha)', 'sum (code_interpreter)']) {
      it(name, async () => {
        const c = byName(name);
        const events = await ask(c);
        const steps = ofType(events, 'step-finish');
        const calls = ofType(events, 'tool-call');
        expect(calls.map((e) => e.call)).toEqual([c.call]);
        expect(steps[0]!.stop).toBe('eom');
        expect(ofType(events, 'tool-result')[0]!.isError).toBe(false);
        const finish = ofType(events, 'finish')[0]!;
        expect(finish.reason).toBe('done');
        expect(steps.at(-1)!.stop).toBe('eot');
        // The answer's prompt extends the call's: the engine (or the server, by its own report) reused all of it.
        expect(steps[1]!.stats.reusedTokens).toBe(steps[0]!.stats.promptTokens + steps[0]!.stats.decodedTokens - 1);
        for (const part of c.answerContains) expect(finish.text).toContain(part);
        // The tool's answer went through the real service path (proxy → fake) for the web tools.
        if (c.call?.kind === 'builtin') expect(fake.requests.some((r) => r.query.q === c.call!.arguments.query || r.query.input === c.call!.arguments.query)).toBe(true);
      }, 120_000);
    }

    it('answers small talk directly, without a tool', async () => {
      const events = await ask(byName('small talk (no tool)'));
      expect(ofType(events, 'tool-call')).toEqual([]);
      expect(ofType(events, 'finish')[0]).toMatchObject({ reason: 'done', steps: 1 });
    }, 60_000);
  });
}
