/**
 * The remote backend against vLLM's response shapes. These are FIXTURES, not a real peer: vLLM cannot
 * run here (no PyPI, no CUDA), so a loopback server replays responses written from vLLM's protocol
 * (vllm/entrypoints/openai/completion/protocol.py and serving.py): each stream chunk's choice carries
 * `token_ids` (the delta), `prompt_token_ids` in the first chunk only, `finish_reason` and `stop_reason`
 * (the stop token's id for a stop_token_ids hit, null for the model's primary eos 128009); with
 * `stream_options.include_usage` a last chunk with `choices: []` and `usage` (whose
 * `prompt_tokens_details.cached_tokens` is there only with --enable-prompt-tokens-details); then
 * `data: [DONE]`. Errors are `{"error": {message, type, param, code}}`. Constraints travel as
 * `structured_outputs` ({json} or {grammar}, vLLM 0.10.2 on; the top-level guided_* fields were removed
 * in 0.12), and one vLLM cannot parse is a 400 ("Invalid grammar specification.", its xgrammar check).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error';
import { createChatCompletions } from '../../src/api/openai/create-chat-completions';
import type { ReplyConstraint } from '../../src/engine/contract';
import { EngineError } from '../../src/engine/errors';
import { renderIds } from '../../src/format/render';
import { END_OF_TEXT, EOM, PYTHON_TAG } from '../../src/format/special-tokens';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import { startFixtureServer, type FixtureServer } from '../../tests/fakes/completions-fixture-server';
import { samplingRequest, structuralBanIds } from '../../tests/support/sampling-request';
import { createNodeEngine } from '../create-node-engine';
import { createRemoteBackend, type RemoteBackend } from './remote-backend';
import { probeServer } from '../../src/engine/remote/probe-server';

const MODEL = 'meta-llama/Llama-3.1-70B-Instruct';
const PROMPT = [128000, 128006, 9125, 128007, 271, 128009, 128006, 882, 128007, 271, 13347, 0, 128009, 128006, 78191, 128007, 271];

/** One vLLM stream chunk (fields as CompletionResponseStreamChoice sets them). */
function chunk(ids: number[], o: { first?: boolean; text?: string; finish?: 'stop' | 'length'; stopReason?: number | null; prompt?: readonly number[] } = {}): string {
  return JSON.stringify({
    id: 'cmpl-fixture-0',
    object: 'text_completion',
    created: 1767225600,
    model: MODEL,
    choices: [{
      index: 0,
      text: o.text ?? ids.map((id) => `t${id}`).join(''),
      logprobs: { text_offset: [0], token_logprobs: ids.map(() => -0.1), tokens: ids.map((id) => `t${id}`), top_logprobs: ids.map((id) => ({ [`t${id}`]: -0.1 })) },
      finish_reason: o.finish ?? null,
      stop_reason: o.stopReason ?? null,
      prompt_token_ids: o.first ? (o.prompt ?? PROMPT) : null,
      token_ids: ids,
    }],
  });
}

/** The final usage chunk (exclude_none: prompt_tokens_details only when the server reports it). */
function usage(completion: number, cached?: number, prompt: readonly number[] = PROMPT): string {
  return JSON.stringify({
    id: 'cmpl-fixture-0',
    object: 'text_completion',
    created: 1767225600,
    model: MODEL,
    choices: [],
    usage: { prompt_tokens: prompt.length, total_tokens: prompt.length + completion, completion_tokens: completion, ...(cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: cached } }) },
  });
}

const MODELS = { status: 200, json: { object: 'list', data: [{ id: MODEL, object: 'model', created: 1767225600, owned_by: 'vllm', root: MODEL, parent: null, max_model_len: 131072, permission: [] }] } };

let fixture: FixtureServer;
let backend: RemoteBackend;

beforeAll(async () => {
  fixture = await startFixtureServer();
  fixture.models = MODELS;
  backend = await createRemoteBackend({ url: `${fixture.url}/v1`, model: MODEL, apiKey: 'sk-fixture' });
});
afterAll(() => fixture?.close());
beforeEach(() => {
  fixture.requests.length = 0;
});

async function run(o: Parameters<typeof samplingRequest>[1] = {}, signal = new AbortController().signal) {
  const batches: number[][] = [];
  const outcome = await backend.generate(samplingRequest(PROMPT, o), (ids) => batches.push(ids), signal);
  return { batches, ids: batches.flat(), outcome };
}

describe('vLLM fixtures (not a real peer)', () => {
  it('probes /v1/models: kind vllm, the served model, max_model_len', () => {
    expect(backend.server).toEqual({ kind: 'vllm', models: [MODEL], contextWindow: 131072 });
    expect(backend.device).toBe(`vllm at ${fixture.url}/v1`);
  });

  it('a model the server does not serve is unknown_model, naming what it serves', async () => {
    await expect(probeServer({ url: fixture.url, model: 'llama-3.1-8b' })).rejects.toMatchObject({ code: 'unknown_model', message: `the engine server at ${fixture.url} serves ${MODEL}, not llama-3.1-8b` });
  });

  it('sends the prompt as ids with every setting, the key as a bearer token, bans as -100', async () => {
    fixture.completions = { sse: [chunk([40], { first: true }), chunk([128009], { finish: 'stop' }), usage(2, 0), '[DONE]'] };
    await run({ sampling: { temperature: 0.6, topP: 0.9, topK: 40, minP: 0.05, logitBias: { 1000: 250, 1001: -3 } }, seed: 7, maxTokens: 50 });
    const [req] = fixture.requests;
    expect(req!.path).toBe('/v1/completions');
    expect(req!.headers.authorization).toBe('Bearer sk-fixture');
    const body = req!.body!;
    expect(body).toMatchObject({
      model: MODEL, prompt: PROMPT, max_tokens: 50, temperature: 0.6, top_p: 0.9, top_k: 40, min_p: 0.05, seed: 7,
      logprobs: 1, stream: true, stream_options: { include_usage: true }, cache_prompt: true, return_token_ids: true,
      skip_special_tokens: false, stop_token_ids: [128001, 128008, 128009],
    });
    const bias = body.logit_bias as Record<string, number>;
    expect(bias['1000']).toBe(100);
    expect(bias['1001']).toBe(-3);
    for (const id of structuralBanIds()) expect(bias[String(id)]).toBe(-100);
  });

  it('streams token_ids deltas; stop_reason null with 128009 last (the primary eos); cached tokens from usage', async () => {
    fixture.completions = { sse: [chunk([128010, 1347], { first: true }), chunk([19577]), chunk([128009], { text: '', finish: 'stop', stopReason: null }), usage(4, 16), '[DONE]'] };
    const { batches, outcome } = await run();
    expect(batches).toEqual([[128010, 1347], [19577], [128009]]);
    expect(outcome).toMatchObject({ reusedTokens: 16, promptTokens: PROMPT.length, evaluatedTokens: null, finishReason: 'stop', generated: 4 });
  });

  it('a stop_token_ids hit: stop_reason is the id (128008), streamed last', async () => {
    fixture.completions = { sse: [chunk([128010], { first: true }), chunk([128008], { text: '', finish: 'stop', stopReason: 128008 }), usage(2, 0), '[DONE]'] };
    expect((await run()).ids).toEqual([128010, 128008]);
  });

  it('a stop only named by stop_reason (not in token_ids) is streamed as the last id', async () => {
    fixture.completions = { sse: [chunk([128010, 40], { first: true }), chunk([], { text: '', finish: 'stop', stopReason: 128008 }), usage(3, 0), '[DONE]'] };
    expect((await run()).ids).toEqual([128010, 40, 128008]);
  });

  it('without --enable-prompt-tokens-details the reuse is unknown (null), not a guess', async () => {
    fixture.completions = { sse: [chunk([40, 128009], { first: true, finish: 'stop' }), usage(2), '[DONE]'] };
    expect((await run()).outcome.reusedTokens).toBeNull();
  });

  it('finish_reason length at max_tokens', async () => {
    fixture.completions = { sse: [chunk([40, 41], { first: true }), chunk([42], { finish: 'length' }), usage(3, 0), '[DONE]'] };
    const { ids, outcome } = await run({ maxTokens: 3 });
    expect(ids).toEqual([40, 41, 42]);
    expect(outcome.finishReason).toBe('length');
  });

  it('ids the server sends after a stop id are cut off (the stop set is ours)', async () => {
    fixture.completions = { sse: [chunk([40, 128008, 41], { first: true }), chunk([42]), chunk([128009], { finish: 'stop' }), usage(5, 0), '[DONE]'] };
    expect((await run()).ids).toEqual([40, 128008]);
  });

  it.each([
    ['a changed prompt (a BOS added)', [JSON.stringify({ choices: [{ index: 0, text: '', prompt_token_ids: [128000, ...PROMPT], token_ids: [] }] })], /evaluated a different prompt \(18 ids, we sent 17\)/],
    ['text without token ids (a server without return_token_ids)', [JSON.stringify({ choices: [{ index: 0, text: 'Hello', logprobs: null, finish_reason: null }] })], /returned text without token ids/],
    ['a stop without its id', [chunk([40], { first: true }), chunk([], { text: '', finish: 'stop' }), usage(1, 0), '[DONE]'], /did not send the stop token's id/],
    ['an error event in the stream', [chunk([40], { first: true }), JSON.stringify({ error: { message: 'engine dead', type: 'InternalServerError', param: null, code: 500 } })], /failed \(500\): engine dead/],
    ['a chunk that is not JSON', ['{"choices": ['], /streamed something that is not JSON/],
    ['an invalid id', [JSON.stringify({ choices: [{ index: 0, text: 'x', token_ids: [-1] }] })], /invalid token id -1/],
  ])('%s is server_error', async (_, sse, message) => {
    fixture.completions = { sse };
    const e = await run().then(() => null, (err: unknown) => err);
    expect(e).toBeInstanceOf(EngineError);
    expect(e).toMatchObject({ code: 'server_error', message: expect.stringMatching(message) });
  });

  it('a connection dropped mid-stream is server_unreachable', async () => {
    fixture.completions = { sse: [chunk([40], { first: true }), chunk([41]), chunk([42])], dropAfter: 2 };
    await expect(run()).rejects.toMatchObject({ code: 'server_unreachable', message: expect.stringMatching(/lost during generation|ended the stream mid-generation/) });
  });

  it.each([
    ['a prompt over max_model_len', 400, { error: { message: "This model's maximum context length is 131072 tokens. However, you requested 131100 tokens (131000 in the messages, 100 in the completion). Please reduce the length of the messages or completion.", type: 'BadRequestError', param: null, code: 400 } }, 'context_overflow', /does not fit the context .*maximum context length is 131072/],
    ['a wrong API key', 401, { error: 'Unauthorized' }, 'server_error', /refused the API key \(401\): Unauthorized/],
    ['an unknown model', 404, { error: { message: 'The model `x` does not exist.', type: 'NotFoundError', param: 'model', code: 404 } }, 'server_error', /no such model or endpoint \(404\): The model `x` does not exist/],
    ['a bad request', 400, { error: { message: 'top_p must be in (0, 1], got 2.0.', type: 'BadRequestError', param: 'top_p', code: 400 } }, 'server_error', /rejected the request \(400\): top_p must be/],
    ['a server failure', 500, { error: { message: 'CUDA out of memory', type: 'InternalServerError', param: null, code: 500 } }, 'server_error', /failed \(500\): CUDA out of memory/],
  ])('%s (HTTP %i) is %s', async (_, status, json, code, message) => {
    fixture.completions = { status, json };
    await expect(run()).rejects.toMatchObject({ name: 'EngineError', code, message: expect.stringMatching(message) });
  });

  it('an abort before the stream ends resolves with what arrived', async () => {
    const many = Array.from({ length: 200 }, (_, i) => chunk([1000 + i], { first: i === 0 }));
    fixture.completions = { sse: [...many, usage(200, 0), '[DONE]'] };
    const controller = new AbortController();
    const ids: number[] = [];
    await backend.generate(samplingRequest(PROMPT), (batch) => {
      ids.push(...batch);
      if (ids.length === 3) controller.abort();
    }, controller.signal);
    expect(ids).toEqual([1000, 1001, 1002]);
  });
});

const SCHEMA = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false };
const INVALID_GRAMMAR = { error: { message: 'Invalid grammar specification.', type: 'BadRequestError', param: null, code: 400 } };

describe('constraints: vLLM’s structured_outputs (fixtures, not a real peer)', () => {
  const constrained = (constraint: ReplyConstraint) => backend.generate({ ...samplingRequest(PROMPT), constraint }, () => {}, new AbortController().signal);

  it.each([
    ['a JSON schema', { type: 'json_schema', schema: SCHEMA }, { json: SCHEMA }],
    ['any JSON object', { type: 'json_object' }, { json: { type: 'object' } }],
    ['a grammar', { type: 'grammar', grammar: 'root ::= "yes" | "no"' }, { grammar: 'root ::= "yes" | "no"' }],
  ] as const)('%s is sent as structured_outputs, and nothing under llama-server’s or the removed guided_* names', async (_, constraint, sent) => {
    fixture.completions = { sse: [chunk([40, 128009], { first: true, finish: 'stop' }), usage(2, 0), '[DONE]'] };
    await constrained(constraint);
    const body = fixture.requests.at(-1)!.body!;
    expect(body.structured_outputs).toEqual(sent);
    for (const key of ['json_schema', 'grammar', 'guided_json', 'guided_grammar', 'response_format']) expect(body).not.toHaveProperty(key);
  });

  it('a constraint vLLM refuses (400) is invalid_constraint with its reason', async () => {
    fixture.completions = { status: 400, json: INVALID_GRAMMAR };
    await expect(constrained({ type: 'grammar', grammar: 'root ::= (' })).rejects.toMatchObject({
      name: 'EngineError',
      code: 'invalid_constraint',
      message: `the engine server at ${fixture.url}/v1 refused the constraint: Invalid grammar specification.`,
    });
  });

  it('the same refusal streamed as an error event is invalid_constraint too', async () => {
    fixture.completions = { sse: [JSON.stringify(INVALID_GRAMMAR), '[DONE]'] };
    await expect(constrained({ type: 'grammar', grammar: 'root ::= (' })).rejects.toMatchObject({ code: 'invalid_constraint', message: expect.stringMatching(/Invalid grammar specification/) });
  });

  it('a 400 that names a grammar, for a request that carried none, stays server_error', async () => {
    fixture.completions = { status: 400, json: INVALID_GRAMMAR };
    await expect(run()).rejects.toMatchObject({ code: 'server_error' });
  });
});

describe('the chat API’s response_format on vLLM (fixtures): the reply is checked when it comes back', () => {
  const tokenizer = loadTokenizer();
  const messages = [{ role: 'user' as const, content: 'How many?' }];
  const prompt = renderIds({ messages, addGenerationPrompt: true }, tokenizer);
  const replyWith = (text: string) => {
    const ids = tokenizer.encode(text);
    fixture.completions = { sse: [chunk(ids, { first: true, prompt }), chunk([128009], { finish: 'stop', prompt }), usage(ids.length + 1, 0, prompt), '[DONE]'] };
  };
  const engine = createNodeEngine();
  const api = createChatCompletions(engine, { tokenizer });
  beforeAll(() => engine.load({ kind: 'server', url: fixture.url, model: MODEL }));
  afterAll(() => engine.unload());
  const ask = () => api.chat.completions.create({ model: MODEL, messages, response_format: { type: 'json_schema', json_schema: { name: 'count', schema: SCHEMA } } });

  it('a reply the schema admits is the answer; the request carried the schema and the bans that end it in eot', async () => {
    replyWith('{"n": 7}');
    const r = await ask();
    expect(r.choices[0]!.message.content).toBe('{"n": 7}');
    const body = fixture.requests.at(-1)!.body!;
    expect(body.prompt).toEqual(prompt);
    expect(body.structured_outputs).toEqual({ json: SCHEMA });
    const bias = body.logit_bias as Record<string, number>;
    for (const id of [PYTHON_TAG, EOM, END_OF_TEXT]) expect(bias[String(id)]).toBe(-100);
  });

  it.each([
    ['JSON the schema does not admit', '{"n": "seven"}', /does not validate against the schema: .*#\/n Instance type "string" is invalid/],
    ['text that is not JSON', 'seven', /the reply is not JSON/],
  ])('%s is the error reply_format_violated (500), never an answer', async (_, text, why) => {
    replyWith(text);
    const e = await ask().then(() => null, (err: unknown) => err);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 500, code: 'reply_format_violated', message: expect.stringMatching(why) });
  });
});

describe('a connection closed before any answer (llama-server closes after each stream)', () => {
  it('is sent once more, on a fresh connection', async () => {
    fixture.queue.push({ reset: true });
    fixture.completions = { sse: [chunk([40, 128009], { first: true, finish: 'stop' }), usage(2, 0), '[DONE]'] };
    expect((await run()).ids).toEqual([40, 128009]);
    expect(fixture.requests.filter((r) => r.path === '/v1/completions')).toHaveLength(2);
  });

  it('twice is server_unreachable', async () => {
    fixture.queue.push({ reset: true }, { reset: true });
    await expect(run()).rejects.toMatchObject({ code: 'server_unreachable', message: expect.stringMatching(/cannot reach the engine server/) });
    expect(fixture.requests.filter((r) => r.path === '/v1/completions')).toHaveLength(2);
  });
});

describe('an unreachable server', () => {
  it('connection refused is server_unreachable, in plain words', async () => {
    const closed = await startFixtureServer();
    const url = closed.url;
    await closed.close();
    await expect(createRemoteBackend({ url })).rejects.toMatchObject({ code: 'server_unreachable', message: `cannot reach the engine server at ${url} (connection refused: is it running?)` });
  });
});
