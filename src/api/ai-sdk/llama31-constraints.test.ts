/**
 * The AI SDK provider under `ai` 7 with the micro model, unforced (greedy), in process — this
 * project has no OpenAI-compatible AI SDK provider pointed at a URL, so `npm run serve` is driven by
 * the `openai` client instead (src/server/api/serve-constraints.test.ts). toolChoice auto / required
 * / none / a named tool over three custom tools, through generateText and streamText: every call
 * names an offered tool and its input validates against that tool's schema; Output.object gives a
 * value of its schema, through generateText and streamText alike.
 */
import { generateText, jsonSchema, Output, stepCountIs, streamText, tool, type ToolChoice, type ToolSet } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAssistantOutput } from '../../format/parse';
import { loadTokenizer } from '../../format/tokenizer/load-node';
import { createNodeEngine } from '../../../worker/create-node-engine';
import type { Engine } from '../../../worker/engine';
import { CITY_SCHEMA, TOOL_QUESTIONS, TOOL_SCHEMAS, validate, type City } from '../../../tests/support/constraint-fixtures';
import { llama31 } from './llama31';

const tokenizer = loadTokenizer();
const DATE = '11 August 2026';
let micro: Engine;
beforeAll(async () => {
  micro = createNodeEngine();
  await micro.load('micro-llama');
});
afterAll(() => micro?.unload());
const model = () => llama31(micro, { tokenizer, date: DATE });

const SCHEMAS = TOOL_SCHEMAS;
/** The tools, without execute: the step ends with the calls, which is what is checked. */
const TOOLS: ToolSet = Object.fromEntries(Object.entries(SCHEMAS).map(([name, schema]) => [name, tool({ description: name.replace(/_/g, ' '), inputSchema: jsonSchema(schema) })]));
const QUESTIONS = TOOL_QUESTIONS;

const validates = (schema: unknown, value: unknown) => validate(schema, value).valid;

function expectValidCalls(calls: ReadonlyArray<{ toolName: string; input: unknown }>, only?: string): void {
  for (const call of calls) {
    expect(Object.keys(SCHEMAS), call.toolName).toContain(call.toolName);
    if (only) expect(call.toolName).toBe(only);
    expect(validates(SCHEMAS[call.toolName], call.input), `${call.toolName}(${JSON.stringify(call.input)})`).toBe(true);
  }
}

const run = (prompt: string, toolChoice: ToolChoice<ToolSet>) => generateText({ model: model(), prompt, tools: TOOLS, toolChoice, stopWhen: stepCountIs(1), maxOutputTokens: 96 });

describe('toolChoice over three custom tools (generateText, streamText)', () => {
  it('auto: every call names an offered tool with a valid input', async () => {
    let calls = 0;
    for (const q of QUESTIONS) {
      const r = await run(q, 'auto');
      expect(r.steps[0]!.content.filter((p) => p.type === 'tool-error')).toEqual([]);
      expectValidCalls(r.toolCalls);
      calls += r.toolCalls.length;
    }
    expect(calls).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('required and a named tool: every reply is a call (of that tool), its input valid', async () => {
    for (const [i, q] of QUESTIONS.entries()) {
      const required = await run(q, 'required');
      expect(required.finishReason, q).toBe('tool-calls');
      expect(required.toolCalls.length, q).toBeGreaterThan(0);
      expectValidCalls(required.toolCalls);
      const name = Object.keys(SCHEMAS)[i % 3]!;
      const named = await run(q, { type: 'tool', toolName: name });
      expect(named.toolCalls, q).toHaveLength(1);
      expectValidCalls(named.toolCalls, name);
    }
  }, 120_000);

  it('none: no call, and no call JSON in the text', async () => {
    for (const q of QUESTIONS) {
      const r = await run(q, 'none');
      expect(r.toolCalls).toEqual([]);
      expect(r.text, q).not.toContain('"name"');
      expect(parseAssistantOutput(r.text).toolCalls, q).toEqual([]);
    }
  }, 120_000);

  it('streamText with required: the streamed call names an offered tool, its input valid', async () => {
    const result = streamText({ model: model(), prompt: 'Hello!', tools: TOOLS, toolChoice: 'required', stopWhen: stepCountIs(1), maxOutputTokens: 96 });
    const calls = await result.toolCalls;
    expect(calls).toHaveLength(1);
    expectValidCalls(calls);
    expect(await result.finishReason).toBe('tool-calls');
  }, 60_000);
});

const CITY = CITY_SCHEMA;

describe('structured output', () => {
  it('generateText and streamText with Output.object: a value of the schema, the same one streamed in parts', async () => {
    const schema = jsonSchema<City>(CITY);
    const prompt = 'What is the population of Tokyo?';
    const text = await generateText({ model: model(), prompt, output: Output.object({ schema }), maxOutputTokens: 128 });
    expect(validates(CITY, text.output), JSON.stringify(text.output)).toBe(true);
    const streamed = streamText({ model: model(), prompt, output: Output.object({ schema }), maxOutputTokens: 128 });
    let partials = 0;
    for await (const _ of streamed.partialOutputStream) partials++;
    expect(await streamed.output).toEqual(text.output); // greedy: the same reply
    expect(partials).toBeGreaterThan(1);
  }, 120_000);
});
