/**
 * The offline demo's topics, unforced, in Node: no keys and no network — brave_search answers from the
 * local index over the bundled demo corpus, wolfram_alpha from local math, Python runs on Pyodide, and
 * the widget demo's own get_opening_hours is a host tool declared in the prompt. The trained micro model
 * (greedy) picks the tool, the real loop runs it, and the answer holds the right value. Any fetch fails
 * the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OFFLINE_CASES, OFFLINE_DATE } from '../../scripts/micro-llama/offline-cases';
import { buildMicroModel } from '../../scripts/setup/micro-model';
import { NodePythonSandbox } from '../../tests/support/node-python-sandbox';
import { createNodeEngine } from '../../worker/create-node-engine';
import { localSearchIndex } from '../cli/node-tools';
import { MODELS } from '../engine/models';
import { loadTokenizer } from '../format/tokenizer/load-node';
import { braveSearchTool } from '../tools/brave-search';
import { codeInterpreterTool } from '../tools/code-interpreter';
import { WIDGET_DEMO_TOOL } from '../../scripts/micro-llama/widget-demo-tool';
import { defineCustomTool } from '../tools/custom-tool';
import type { Tool } from '../tools/tool';
import { wolframAlphaTool } from '../tools/wolfram-alpha';
import { collect, ofType } from './collect-events';
import { runAgent } from './run-agent';

const MICRO = MODELS.find((m) => m.demo)!;
const tokenizer = loadTokenizer();
const engine = createNodeEngine();
const sandbox = new NodePythonSandbox();
const fetches: string[] = [];
const noNetwork = (async (url: RequestInfo | URL) => {
  fetches.push(String(url));
  throw new TypeError('the network is blocked in this test');
}) as typeof fetch;

/** The widget demo's host tool, as src/widget/demo.html registers it. */
const openingHours = defineCustomTool(WIDGET_DEMO_TOOL);

const index = localSearchIndex();
const widgetTools: Tool[] = [codeInterpreterTool(sandbox), openingHours];
const builtins: Tool[] = [
  braveSearchTool({ provider: 'local', localIndex: async () => index, fetch: noNetwork }),
  wolframAlphaTool({ provider: 'local', localMath: true, fetch: noNetwork }),
  codeInterpreterTool(sandbox),
];

beforeAll(async () => {
  await buildMicroModel(); // expanded from the committed artifact, whatever a training run left in models/
  await Promise.all([engine.load(MICRO.id), sandbox.warm()]);
}, 120_000);
afterAll(async () => {
  await engine.unload();
});

async function ask(question: string, tools: Tool[]) {
  const events = await collect(runAgent({
    engine, tokenizer, tools, model: engine.model,
    conversation: { date: OFFLINE_DATE, messages: [{ role: 'user', content: question }] },
    sampling: { temperature: 0 },
    confirm: async () => true,
  }));
  const finish = ofType(events, 'finish')[0]!;
  return { calls: ofType(events, 'tool-call').map((e) => e.call), answer: ofType(events, 'step-finish').at(-1)!.content, reason: finish.reason };
}

describe('the offline demo in Node: every topic unforced, no key, no network', () => {
  it.each(OFFLINE_CASES.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const r = await ask(c.question, c.tools === 'widget' ? widgetTools : builtins);
    expect(r.calls.map((call) => call.name)).toEqual(c.tool === null ? [] : [c.tool]);
    expect(r.reason).toBe('done');
    expect(r.answer.trim()).not.toBe('');
    for (const v of c.answer()) expect(r.answer).toContain(v);
    expect(fetches).toEqual([]);
  });
});
