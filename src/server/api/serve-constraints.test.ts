/**
 * Constrained replies from `npm run serve` (a child process, the micro model, greedy) through the
 * official `openai` client: tool_choice auto / required / none / a named tool over three custom
 * tools and several questions — every call names an offered tool (the named one when named) and its
 * arguments validate against that tool's schema, `required` and a named choice always call, `none`
 * never puts a call into the content; response_format json_object and json_schema, plain and
 * streamed; llama-server's `grammar` field; and the refusals (a keyword the grammar does not enforce,
 * a schema or grammar that does not compile — sent twice, the server still answering after, and
 * streamed, refused with its status before the stream starts).
 */
import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming, ChatCompletionTool, ChatCompletionToolChoiceOption } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAssistantOutput } from '../../format/parse';
import { CITY_SCHEMA, TOOL_NAMES, TOOL_QUESTIONS, TOOL_SCHEMAS, validate } from '../../../tests/support/constraint-fixtures';
import { startNpmScript, type NpmScript } from '../../../tests/support/npm-script';

const MICRO = 'micro-llama';
let server: NpmScript;
let client: OpenAI;

beforeAll(async () => {
  server = await startNpmScript('serve', ['--port', '0'], /serving \S+ at (http:\S+)/);
  // A server that hangs fails the test by this timeout, not by the test's own.
  client = new OpenAI({ baseURL: server.url, apiKey: 'unused', maxRetries: 0, timeout: 30_000 });
}, 120_000);
afterAll(() => server?.stop());

const TOOLS: ChatCompletionTool[] = TOOL_NAMES.map((name) => ({
  type: 'function',
  function: { name, description: name.replace(/_/g, ' '), parameters: TOOL_SCHEMAS[name] },
}));
const QUESTIONS = TOOL_QUESTIONS;
const CITY = CITY_SCHEMA;

const validates = validate;

/** Every call names an offered tool (`only`, when given) and its arguments are valid JSON of that tool's schema. */
function expectValidCalls(reply: ChatCompletion, only?: string): number {
  const calls = reply.choices[0]!.message.tool_calls ?? [];
  for (const call of calls) {
    if (call.type !== 'function') throw new Error(`a ${call.type} call`);
    expect(TOOL_NAMES, `called ${call.function.name}`).toContain(call.function.name);
    if (only) expect(call.function.name).toBe(only);
    const args = JSON.parse(call.function.arguments) as unknown;
    const result = validates(TOOL_SCHEMAS[call.function.name], args);
    expect(result.valid, `${call.function.name}(${call.function.arguments}): ${JSON.stringify(result.errors)}`).toBe(true);
  }
  return calls.length;
}

const ask = (question: string, toolChoice: ChatCompletionToolChoiceOption) =>
  client.chat.completions.create({ model: MICRO, messages: [{ role: 'user', content: question }], tools: TOOLS, tool_choice: toolChoice, max_tokens: 96 });

describe('tool_choice over three custom tools', () => {
  it('auto: every call names an offered tool with valid arguments', async () => {
    let calls = 0;
    for (const q of QUESTIONS) calls += expectValidCalls(await ask(q, 'auto'));
    // The checks above are not vacuous: the micro model calls on its own for most of these questions.
    expect(calls).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('required: every reply is a call of an offered tool, its arguments valid', async () => {
    for (const q of QUESTIONS) {
      const reply = await ask(q, 'required');
      expect(reply.choices[0]!.finish_reason, q).toBe('tool_calls');
      expect(expectValidCalls(reply), q).toBeGreaterThan(0);
    }
  }, 120_000);

  it('a named tool: every reply calls that tool, its arguments valid', async () => {
    for (const [i, q] of QUESTIONS.entries()) {
      const name = TOOL_NAMES[i % TOOL_NAMES.length]!;
      const reply = await ask(q, { type: 'function', function: { name } });
      expect(reply.choices[0]!.finish_reason, q).toBe('tool_calls');
      expect(expectValidCalls(reply, name), q).toBe(1);
    }
  }, 120_000);

  it('none: no call, and no call JSON in the content', async () => {
    for (const q of QUESTIONS) {
      const reply = await ask(q, 'none');
      const { content, tool_calls } = reply.choices[0]!.message;
      expect(reply.choices[0]!.finish_reason, q).not.toBe('tool_calls');
      expect(tool_calls ?? []).toEqual([]);
      expect(content, q).not.toContain('"name"');
      expect(parseAssistantOutput(content ?? '').toolCalls, q).toEqual([]);
    }
  }, 120_000);

  it('required, streamed: the call arrives in tool_calls deltas, its arguments valid', async () => {
    const stream = await client.chat.completions.create({ model: MICRO, messages: [{ role: 'user', content: 'Hello!' }], tools: TOOLS, tool_choice: 'required', stream: true });
    const calls: Array<{ name?: string; arguments: string }> = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const d of chunk.choices[0]?.delta.tool_calls ?? []) {
        calls[d.index] ??= { arguments: '' };
        if (d.function?.name) calls[d.index]!.name = d.function.name;
        calls[d.index]!.arguments += d.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe('tool_calls');
    expect(calls).toHaveLength(1);
    expect(TOOL_NAMES).toContain(calls[0]!.name);
    expect(validates(TOOL_SCHEMAS[calls[0]!.name!], JSON.parse(calls[0]!.arguments)).valid).toBe(true);
  }, 60_000);
});


describe('replies in a set format', () => {
  const reply = async (body: Omit<ChatCompletionCreateParamsNonStreaming, 'model'>) => {
    const plain = await client.chat.completions.create({ model: MICRO, max_tokens: 128, ...body });
    const stream = await client.chat.completions.create({ model: MICRO, max_tokens: 128, ...body, stream: true });
    let streamed = '';
    let deltas = 0;
    for await (const chunk of stream) {
      const d = chunk.choices[0]?.delta.content;
      if (d) (streamed += d), deltas++;
    }
    return { plain, content: plain.choices[0]!.message.content ?? '', streamed, deltas };
  };

  it('json_schema: valid JSON of the schema, plain and streamed alike (the stream in several deltas)', async () => {
    for (const q of ['What is the population of Tokyo?', 'What is the capital of Japan?', 'Hello!']) {
      const r = await reply({ messages: [{ role: 'user', content: q }], response_format: { type: 'json_schema', json_schema: { name: 'city', schema: CITY, strict: true } } });
      expect(r.plain.choices[0]!.finish_reason, r.content).toBe('stop');
      const result = validates(CITY, JSON.parse(r.content));
      expect(result.valid, `${r.content}: ${JSON.stringify(result.errors)}`).toBe(true);
      expect(r.streamed).toBe(r.content);
      expect(r.deltas).toBeGreaterThan(1);
    }
  }, 120_000);

  it('json_object: a JSON object, plain and streamed alike', async () => {
    const r = await reply({ messages: [{ role: 'user', content: 'Hello!' }], response_format: { type: 'json_object' }, max_tokens: 256 });
    const value = JSON.parse(r.content) as unknown;
    expect(typeof value === 'object' && value !== null && !Array.isArray(value), r.content).toBe(true);
    expect(r.streamed).toBe(r.content);
  }, 60_000);

  it('grammar: a string of the grammar, plain and streamed alike', async () => {
    const grammar = 'root ::= ("yes" | "no") ", " [a-z]{1,8} "."';
    const r = await reply({ messages: [{ role: 'user', content: 'Is Tokyo the capital of Japan?' }], grammar } as never);
    expect(r.content).toMatch(/^(yes|no), [a-z]{1,8}\.$/);
    expect(r.streamed).toBe(r.content);
  }, 60_000);
});

describe('refused constraints', () => {
  const body = (fields: object) => ({ model: MICRO, messages: [{ role: 'user' as const, content: 'Hello!' }], ...fields }) as ChatCompletionCreateParamsNonStreaming;

  it('a keyword the grammar does not enforce is a 400 naming it and where it is', async () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', multipleOf: 3 } } };
    await expect(client.chat.completions.create(body({ response_format: { type: 'json_schema', json_schema: { name: 's', schema } } }))).rejects.toMatchObject({
      status: 400,
      param: 'response_format.json_schema.schema',
      message: expect.stringMatching(/"multipleOf" \(at \/properties\/n\)/),
    });
    const tool = { type: 'function', function: { name: 'tag', parameters: { type: 'object', properties: { tags: { type: 'array', uniqueItems: true } } } } };
    await expect(client.chat.completions.create(body({ tools: [tool] }))).rejects.toMatchObject({ status: 400, param: 'tools[0].function.parameters', message: expect.stringContaining('"uniqueItems"') });
  });

  it('a schema or a grammar that does not compile is a 400 invalid_constraint, every time; the server answers after', async () => {
    for (let round = 0; round < 2; round++) {
      await expect(client.chat.completions.create(body({ response_format: { type: 'json_schema', json_schema: { name: 's', schema: { type: 'strin' } } } }))).rejects.toMatchObject({
        status: 400,
        code: 'invalid_constraint',
        message: expect.stringContaining('"strin"'),
      });
      await expect(client.chat.completions.create(body({ grammar: 'root ::= nothing' }))).rejects.toMatchObject({ status: 400, code: 'invalid_constraint', message: expect.stringContaining('"nothing"') });
    }
    // Streamed, the refusal comes before the stream: its status, not a 200 with an error event.
    const streamed = { stream: true, response_format: { type: 'json_schema', json_schema: { name: 's', schema: { type: 'strin' } } } };
    await expect(client.chat.completions.create(body(streamed))).rejects.toMatchObject({ status: 400, code: 'invalid_constraint' });
    const after = await client.chat.completions.create(body({ response_format: { type: 'json_schema', json_schema: { name: 'city', schema: CITY } } }));
    expect(validates(CITY, JSON.parse(after.choices[0]!.message.content!)).valid).toBe(true);
  }, 60_000);
});
