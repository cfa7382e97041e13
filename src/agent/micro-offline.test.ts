/**
 * The offline demo's topics, unforced, in Node: no keys and no network — brave_search answers from the
 * local index over the bundled demo corpus, wolfram_alpha from local math, Python runs on Pyodide, and
 * the widget demo's own get_opening_hours is a host tool declared in the prompt. The trained micro model
 * (greedy) picks the tool, the real loop runs it, and the answer holds the right value. Any fetch fails
 * the test.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodePythonSandbox } from '../../tests/support/node-python-sandbox';
import { createNodeEngine } from '../../worker/create-node-engine';
import { DEMO_CORPUS_PATH, localSearchIndex } from '../cli/node-tools';
import { MODELS } from '../engine/models';
import { loadTokenizer } from '../format/tokenizer/load-node';
import { braveSearchTool } from '../tools/brave-search';
import { codeInterpreterTool } from '../tools/code-interpreter';
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
const openingHours = defineCustomTool({
  name: 'get_opening_hours',
  description: 'Opening hours of the bakery on a given weekday',
  parameters: { type: 'object', properties: { day: { type: 'string', description: 'Weekday, e.g. Monday' } }, required: ['day'] },
  readOnly: true,
  execute: ({ day }: Record<string, unknown>) => ({ day, open: '07:00', close: day === 'Sunday' ? '12:00' : '18:00' }),
});

const index = localSearchIndex();
const builtins: Tool[] = [
  braveSearchTool({ provider: 'local', localIndex: async () => index, fetch: noNetwork }),
  wolframAlphaTool({ provider: 'local', localMath: true, fetch: noNetwork }),
  codeInterpreterTool(sandbox),
];

/** The demo corpus's figure for a population question (its "(demo figure)" document). */
function demoPopulation(city: string): string {
  const docs = JSON.parse(readFileSync(DEMO_CORPUS_PATH, 'utf8')) as Array<{ title: string; text: string }>;
  const doc = docs.find((d) => d.title === `${city} population (demo figure)`)!;
  return /is ([\d,]+)/.exec(doc.text)![1]!;
}

beforeAll(async () => {
  await Promise.all([engine.load(MICRO.id), sandbox.warm()]);
}, 120_000);
afterAll(async () => {
  await engine.unload();
});

async function ask(question: string, tools: Tool[]) {
  const events = await collect(runAgent({
    engine, tokenizer, tools, model: engine.model,
    conversation: { date: '2026-08-11', messages: [{ role: 'user', content: question }] },
    sampling: { temperature: 0 },
    confirm: async () => true,
  }));
  const finish = ofType(events, 'finish')[0]!;
  return { calls: ofType(events, 'tool-call').map((e) => e.call), answer: ofType(events, 'step-finish').at(-1)!.content, reason: finish.reason };
}

interface OfflineCase {
  question: string;
  /** The tool the model must call (by name), or null for a direct answer. */
  tool: string | null;
  answer: () => readonly string[];
  tools?: Tool[];
}

const CASES: Record<string, OfflineCase> = {
  'capital (local index)': { question: 'What is the capital of Japan?', tool: 'brave_search', answer: () => ['Tokyo'] },
  'population (local index, a demo figure)': { question: 'What is the population of Tokyo?', tool: 'brave_search', answer: () => [demoPopulation('Tokyo')] },
  'arithmetic (local math)': { question: 'What is 123 * 45?', tool: 'wolfram_alpha', answer: () => ['5535'] },
  'derivative (local math)': { question: 'What is the derivative of x^3?', tool: 'wolfram_alpha', answer: () => ['3 x^2'] },
  'Python (Pyodide)': { question: 'Use Python to add up the numbers from 1 to 100.', tool: 'code_interpreter', answer: () => ['5050'] },
  "today's date (no tool)": { question: "What is today's date?", tool: null, answer: () => ['11 August 2026'] },
  'small talk (no tool)': { question: 'Hello!', tool: null, answer: () => [] },
  "the widget demo's get_opening_hours (a host tool)": {
    question: 'When are you open on Monday?', tool: 'get_opening_hours', answer: () => ['07:00', '18:00'], tools: [codeInterpreterTool(sandbox), openingHours],
  },
};

describe('the offline demo in Node: every topic unforced, no key, no network', () => {
  it.each(Object.entries(CASES))('%s', async (_, c) => {
    const r = await ask(c.question, c.tools ?? builtins);
    expect(r.calls.map((call) => call.name)).toEqual(c.tool === null ? [] : [c.tool]);
    expect(r.reason).toBe('done');
    expect(r.answer.trim()).not.toBe('');
    for (const v of c.answer()) expect(r.answer).toContain(v);
    expect(fetches).toEqual([]);
  });
});
