/**
 * Constraints on a real llama-server (the micro model's F32 GGUF), through the whole engine as Node
 * builds it (createNodeEngine, a `{kind: 'server'}` model) and through the chat API over that engine:
 * the server's own grammar engine holds the reply to a JSON schema, any JSON object or a GBNF grammar,
 * the reply ends in eot, and a grammar or schema the server refuses is `invalid_constraint` with its
 * reason. Each constrained reply is compared with the unconstrained one, so the constraint is seen to act.
 */
import { Validator } from '@cfworker/json-schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MICRO_E2E_CASES, MICRO_E2E_RENDER_OPTIONS } from '../../scripts/micro-llama/e2e-cases';
import { createChatCompletions } from '../../src/api/openai/create-chat-completions';
import type { Constraint, GenerateResult } from '../../src/engine/contract';
import { EOT } from '../../src/format/special-tokens';
import { renderIds } from '../../src/format/render';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import { startLlamaServer, type LlamaServer } from '../../tests/support/llama-server';
import { createNodeEngine } from '../create-node-engine';
import type { Engine } from '../engine';

const tokenizer = loadTokenizer();
const chat = MICRO_E2E_CASES.find((c) => c.name === 'small talk (no tool)')!.question;
const prompt = renderIds({ ...MICRO_E2E_RENDER_OPTIONS, messages: [{ role: 'user', content: chat }] }, tokenizer);
/**
 * Any JSON object leaves the model free inside its strings, and the greedy micro model does not close one on every
 * prompt within the token budget (on "Hello!" it writes prose into a string until the cap): this prompt is one whose
 * object it closes, so the test sees the server's grammar end the reply in eot.
 */
const objectPrompt = renderIds({ ...MICRO_E2E_RENDER_OPTIONS, messages: [{ role: 'user', content: 'Hi!' }] }, tokenizer);
const SCHEMA = {
  type: 'object',
  properties: { answer: { enum: ['yes', 'no'] }, count: { type: 'integer' } },
  required: ['answer', 'count'],
  additionalProperties: false,
};

let server: LlamaServer;
let engine: Engine;

beforeAll(async () => {
  server = await startLlamaServer();
  engine = createNodeEngine();
  await engine.load({ kind: 'server', url: server.url });
});
afterAll(async () => {
  await engine?.unload();
  await server?.stop();
});

async function generate(constraint?: Constraint, tokens: number[] = prompt): Promise<{ result: GenerateResult; text: string }> {
  const result = await engine.generate({ tokens, sampling: { temperature: 0 }, maxTokens: 120, ...(constraint ? { constraint } : {}) });
  return { result, text: tokenizer.decode(result.tokens) };
}

const isJson = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('constraints on llama-server, through the engine', () => {
  it('unconstrained, the micro model answers in prose (what the constraints below change)', async () => {
    const { result, text } = await generate();
    expect(result.stop).toBe('eot');
    expect(isJson(text)).toBe(false);
  });

  it('a JSON schema: the reply is JSON valid against it, then eot', async () => {
    const { result, text } = await generate({ type: 'json_schema', schema: SCHEMA });
    expect(result).toMatchObject({ stop: 'eot', stopId: EOT });
    const value: unknown = JSON.parse(text);
    expect(new Validator(SCHEMA as never, '2020-12', false).validate(value).errors).toEqual([]);
  });

  it('any JSON object: the reply is one, then eot (unconstrained, the same prompt is answered in prose)', async () => {
    const free = await generate(undefined, objectPrompt);
    expect(free.result.stop).toBe('eot');
    expect(isJson(free.text)).toBe(false);
    const { result, text } = await generate({ type: 'json_object' }, objectPrompt);
    expect(result.stop).toBe('eot');
    const value: unknown = JSON.parse(text);
    expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(true);
  });

  it('a grammar (GBNF, names with dashes as both dialects allow): the reply is a string of it, then eot', async () => {
    const grammar = 'root ::= "The answer is " yes-or-no "."\nyes-or-no ::= "yes" | "no"';
    const { result, text } = await generate({ type: 'grammar', grammar });
    expect(result.stop).toBe('eot');
    expect(text).toMatch(/^The answer is (yes|no)\.$/);
  });

  it('a grammar the server cannot parse is invalid_constraint with its reason; the engine serves the next request', async () => {
    await expect(generate({ type: 'grammar', grammar: 'root ::= ((("a"' })).rejects.toMatchObject({
      name: 'EngineError',
      code: 'invalid_constraint',
      message: expect.stringMatching(new RegExp(`^the engine server at ${server.url} refused the constraint: .*failed to parse grammar`)),
    });
    expect((await generate()).result.stop).toBe('eot');
  });

  it('a rule name with "_" (XGrammar reads it, GBNF does not) is refused by the server, not run unconstrained', async () => {
    await expect(generate({ type: 'grammar', grammar: 'root ::= yes_or_no\nyes_or_no ::= "yes" | "no"' })).rejects.toMatchObject({ code: 'invalid_constraint' });
  });

  it('a schema the server cannot convert is invalid_constraint naming what is wrong', async () => {
    const schema = { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } };
    await expect(generate({ type: 'json_schema', schema })).rejects.toMatchObject({
      code: 'invalid_constraint',
      message: expect.stringMatching(/refused the constraint: .*json_schema.*cannot resolve \$ref/s),
    });
  });

  it('the chat API’s response_format reaches the server: the reply is the schema’s JSON', async () => {
    const api = createChatCompletions(engine, { tokenizer });
    const r = await api.chat.completions.create({
      model: engine.model!.modelId,
      messages: [{ role: 'user', content: chat }],
      temperature: 0,
      response_format: { type: 'json_schema', json_schema: { name: 'reply', schema: SCHEMA } },
    });
    const content = r.choices[0]!.message.content!;
    expect(r.choices[0]!.finish_reason).toBe('stop');
    expect(new Validator(SCHEMA as never, '2020-12', false).validate(JSON.parse(content)).valid).toBe(true);
  });
});
