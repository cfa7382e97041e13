/**
 * The server `npm run serve` runs (createApiServer), in process so the model's side can be forced:
 * the tiny model behind real HTTP, the official `openai` client unmodified. Custom-tool round trips,
 * parallel calls answered out of order, text completions, and every failure path: bad JSON, unknown
 * route and method, a failure after the stream started, a client that disconnects mid-stream.
 */
import type { AddressInfo } from 'node:net';
import { request, type Server } from 'node:http';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, ofType } from '../../agent/collect-events';
import { runAgent } from '../../agent/run-agent';
import { forceSteps } from '../../../tests/support/force-steps';
import { scriptIds } from '../../agent/scripted-output';
import type { ChatTurnResult } from '../../api/chat-types';
import { EngineError } from '../../engine/errors';
import { loadTokenizer } from '../../format/tokenizer/load-node';
import { defineCustomTool } from '../../tools/custom-tool';
import { createNodeEngine } from '../../../worker/create-node-engine';
import type { Engine } from '../../../worker/engine';
import { rawRequest } from '../../../tests/support/raw-http';
import { recordingEngine, type RecordingEngine } from '../../../tests/support/recording-engine';
import { createApiServer } from './api-server';

const tokenizer = loadTokenizer();
const MODEL = 'tiny-llama';
const DATE = '11 August 2026';
let node: Engine;
let engine: RecordingEngine;
let server: Server;
let base: string;
let client: OpenAI;
const turns: ChatTurnResult[] = [];

async function listen(s: Server): Promise<string> {
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`;
}

beforeAll(async () => {
  node = createNodeEngine();
  await node.load(MODEL);
  engine = recordingEngine(node, tokenizer);
  server = createApiServer({ engine, date: DATE, onTurn: (t) => turns.push(t) });
  base = await listen(server);
  client = new OpenAI({ baseURL: base, apiKey: 'unused', maxRetries: 0 });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await node.unload();
});

const force = (...raws: string[]) => engine.forceNextRun(raws.map((r) => scriptIds(r, tokenizer)));
const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const WEATHER: ChatCompletionTool = { type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: schema } };
const TIME: ChatCompletionTool = { type: 'function', function: { name: 'get_time', description: 'Current time in a city', parameters: schema } };

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('chat completions over HTTP with the openai client', () => {
  it('a custom-tool round trip: tool_calls → role tool → the answer, prefilling only what was appended', async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    force('{"name": "get_weather", "parameters": {"city": "Paris"}}<|eot_id|>');
    const first = await client.chat.completions.create({ model: MODEL, messages, tools: [WEATHER] });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && [call.function.name, JSON.parse(call.function.arguments)]).toEqual(['get_weather', { city: 'Paris' }]);
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '{"temperature_c": 21}' });
    force('It is 21 degrees.<|eot_id|>');
    const second = await client.chat.completions.create({ model: MODEL, messages, tools: [WEATHER] });
    expect(second.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'It is 21 degrees.' } });
    const cached = first.usage!.prompt_tokens + first.usage!.completion_tokens - 1;
    expect(second.usage!.prompt_tokens_details!.cached_tokens).toBe(cached);
    expect(engine.calls.at(-1)!.result!.stats.prefilledTokens).toBe(second.usage!.prompt_tokens - cached);
    console.log(`server cache reuse (tiny, custom tool): ${second.usage!.prompt_tokens} prompt tokens, ${cached} cached, ${second.usage!.prompt_tokens - cached} prefilled`);

    // What the server sent the engine is what runAgent renders for the same conversation.
    const served = turns.slice(-2).map((t) => t.prompt);
    const weather = defineCustomTool({ name: 'get_weather', description: 'Current weather for a city', parameters: schema, readOnly: true, execute: async () => '{"temperature_c": 21}' });
    const scripts = ['{"name": "get_weather", "parameters": {"city": "Paris"}}<|eot_id|>', 'It is 21 degrees.<|eot_id|>'];
    const agent = await collect(runAgent({ engine: node, tokenizer, tools: [weather], conversation: { date: DATE, messages: [{ role: 'user', content: 'Weather in Paris?' }] }, logitsProcessors: forceSteps(scripts, tokenizer) }));
    const rendered = ofType(agent, 'step-finish').map((e) => e.prompt);
    expect(served.map((p) => p.text)).toEqual(rendered.map((p) => p.text));
    expect(served.map((p) => p.ids)).toEqual(rendered.map((p) => p.ids));
  });

  it('two parallel calls, streamed, answered in reverse order: results written in call order', async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Time and weather in Oslo?' }];
    force('{"name": "get_time", "parameters": {"city": "Oslo"}}; {"name": "get_weather", "parameters": {"city": "Oslo"}}<|eot_id|>');
    const stream = await client.chat.completions.create({ model: MODEL, messages, tools: [WEATHER, TIME], stream: true });
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const d of chunk.choices[0]?.delta.tool_calls ?? []) calls[d.index] = { id: d.id!, name: d.function!.name!, arguments: d.function!.arguments! };
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe('tool_calls');
    expect(calls.map((c) => c.name)).toEqual(['get_time', 'get_weather']);
    messages.push(
      { role: 'assistant', content: null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) },
      { role: 'tool', tool_call_id: calls[1]!.id, content: 'mild' },
      { role: 'tool', tool_call_id: calls[0]!.id, content: 'noon' },
    );
    force('Noon and mild.<|eot_id|>');
    const answer = await client.chat.completions.create({ model: MODEL, messages, tools: [WEATHER, TIME] });
    expect(answer.choices[0]!.message.content).toBe('Noon and mild.');
    expect(turns.at(-1)!.prompt.text).toContain('ipython<|end_header_id|>\n\nnoon<|eot_id|><|start_header_id|>ipython<|end_header_id|>\n\nmild<|eot_id|>');
    // Rebuilt from the stream, the assistant message is what was returned: it replays as emitted.
    const streamed = turns.at(-2)!.usage;
    expect(answer.usage!.prompt_tokens_details!.cached_tokens).toBe(streamed.promptTokens + streamed.completionTokens - 1);
  });
});

describe('text completions', () => {
  it('a text prompt (plain content after begin_of_text), an ids prompt, and a stream', async () => {
    force('Paris.<|eot_id|>');
    const text = await client.completions.create({ model: MODEL, prompt: 'The capital of France is <|eot_id|>', max_tokens: 8 });
    expect(text.choices[0]).toMatchObject({ text: 'Paris.', finish_reason: 'stop' });
    const sent = engine.calls.at(-1)!.request.tokens;
    expect(sent[0]).toBe(128000);
    expect(sent.slice(1).every((id) => id < 128000)).toBe(true);

    force('ids.<|eot_id|>');
    const ids = await client.completions.create({ model: MODEL, prompt: [128000, 9906], max_tokens: 8 });
    expect(ids.choices[0]!.text).toBe('ids.');
    expect(engine.calls.at(-1)!.request.tokens).toEqual([128000, 9906]);

    const stream = await client.completions.create({ model: MODEL, prompt: 'Count:', max_tokens: 5, stream: true });
    let streamed = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      streamed += chunk.choices[0]?.text ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe('length');
    expect(streamed).toBe(tokenizer.decode(engine.calls.at(-1)!.result!.tokens));
  });
});

describe('failures', () => {
  it('bad JSON is a 400 in OpenAI error shape', async () => {
    const r = await post('/chat/completions', '{"model": "tiny-llama", "messages": [');
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_json' } });
  });

  it('a body past the limit is a 413', async () => {
    const r = await post('/chat/completions', JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x'.repeat(9 * 1024 * 1024) }] }));
    expect(r.status).toBe(413);
    expect(await r.json()).toMatchObject({ error: { code: 'request_too_large' } });
  });

  it('a body that is not JSON (what a cross-site page can send without a preflight) is a 415, and nothing runs', async () => {
    const before = engine.calls.length;
    const r = await post('/chat/completions', JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }), { 'content-type': 'text/plain' });
    expect(r.status).toBe(415);
    expect(await r.json()).toMatchObject({ error: { code: 'unsupported_media_type' } });
    expect(engine.calls.length).toBe(before);
  });

  it('a request addressed to another name (DNS rebinding) is a 403; loopback names pass', async () => {
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${base}/models`, { headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        req.end();
      });
    const port = new URL(base).port;
    expect(await status(`attacker.example:${port}`)).toBe(403);
    expect(await status(`localhost:${port}`)).toBe(200);
    expect(await status(`[::1]:${port}`)).toBe(200);
  });

  it('a malformed request target is a 400 before the Host check, and the server goes on serving', async () => {
    const { hostname, port } = new URL(base);
    for (const target of ['//[', '//%', 'http://[', '//:99999', '/v1/models/%E0%A4%A']) {
      const r = await rawRequest({ host: hostname, port: Number(port), target, headers: { Host: 'attacker.example' } });
      expect(r.status, target).toBe(400);
      expect(JSON.parse(r.body), target).toMatchObject({ error: { type: 'invalid_request_error', code: 'malformed_request_target' } });
    }
    expect((await fetch(`${base}/models`)).status).toBe(200);
  });

  it('an unknown route is a 404, a wrong method a 405', async () => {
    expect((await post('/embeddings', '{}')).status).toBe(404);
    const r = await fetch(`${base}/chat/completions`);
    expect(r.status).toBe(405);
    expect(await r.json()).toMatchObject({ error: { code: 'method_not_allowed' } });
  });

  it('an unknown model is a 404 and context overflow a 400, through the client', async () => {
    await expect(client.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
    await expect(client.completions.create({ model: MODEL, prompt: 'word '.repeat(5000) })).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded', param: 'prompt' });
  });

  it('a client that disconnects mid-stream aborts its generation; the next request is served', async () => {
    const r = await post('/chat/completions', JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Talk' }], stream: true, max_tokens: 2000 }));
    const reader = r.body!.getReader();
    let seen = '';
    while (!/"content":"[^"]/.test(seen)) seen += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel(); // closes the connection
    await node.generate({ tokens: [128000], maxTokens: 1 }); // queued behind the disconnected run: it has ended
    const run = engine.calls.at(-1)!;
    expect(run.result!.stop).toBe('abort');
    expect(run.result!.stats.decodedTokens).toBeLessThan(2000);
    force('Still here.<|eot_id|>');
    const next = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] });
    expect(next.choices[0]!.message.content).toBe('Still here.');
  });

  it('a request the engine refuses before generating is answered with its status, streamed or not', async () => {
    const refusing = createApiServer({
      engine: { model: node.model, tokenizer, generate: async () => Promise.reject(new EngineError('invalid_constraint', 'the JSON schema cannot be compiled')) },
    });
    const url = await listen(refusing);
    try {
      const c = new OpenAI({ baseURL: url, apiKey: 'unused', maxRetries: 0 });
      for (const stream of [false, true]) {
        await expect(c.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], stream })).rejects.toMatchObject({
          status: 400,
          code: 'invalid_constraint',
        });
      }
    } finally {
      refusing.closeAllConnections();
      refusing.close();
    }
  });

  it('a failure after the stream started is an error event the client raises', async () => {
    const failing = createApiServer({
      engine: {
        model: node.model,
        tokenizer,
        generate: async (_request, onIds) => {
          onIds?.(tokenizer.encode('Partly'));
          throw new EngineError('device_lost', 'the GPU went away');
        },
      },
    });
    const url = await listen(failing);
    try {
      const c = new OpenAI({ baseURL: url, apiKey: 'unused', maxRetries: 0 });
      const stream = await c.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], stream: true });
      const read = async () => {
        for await (const _ of stream) void _;
      };
      await expect(read()).rejects.toMatchObject({ error: { code: 'device_lost', message: 'the GPU went away' } });
    } finally {
      failing.closeAllConnections();
      failing.close();
    }
  });
});

describe('what engine servers accept: fields, cache salts, health and metrics', () => {
  const ask = (extra: Record<string, unknown>, content = 'Say something about the sea and the sky.') =>
    client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content }], max_tokens: 3, temperature: 0, ...extra } as never) as Promise<{
      usage: { prompt_tokens_details?: { cached_tokens?: number } };
    }>;
  const cached = (r: { usage: { prompt_tokens_details?: { cached_tokens?: number } } }) => r.usage.prompt_tokens_details?.cached_tokens;

  it('user, messages[].name, top_k, min_p and repetition_penalty are accepted; the name is not shown to the model', async () => {
    await ask({ user: 'user-1234', top_k: 40, min_p: 0.05, repetition_penalty: 1.1 });
    const named = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi', name: 'bob' }], max_tokens: 2 });
    expect(named.choices).toHaveLength(1);
    expect(turns.at(-1)!.prompt.text).not.toContain('bob');
    expect(engine.calls.at(-2)!.request.sampling).toMatchObject({ topK: 40, minP: 0.05, repetitionPenalty: 1.1 });
    for (const [field, value] of [['top_k', 1.5], ['min_p', 2], ['repetition_penalty', 0], ['user', 7], ['cache_salt', '']] as const) {
      await expect(ask({ [field]: value })).rejects.toMatchObject({ status: 400, param: field });
    }
  });

  it('top_k -1 (vLLM) and 0 (llama-server) both mean off', async () => {
    await ask({ top_k: -1 });
    expect(engine.calls.at(-1)!.request.sampling?.topK).toBe(0);
  });

  it('cache_salt: requests with different salts never share cached ids; the same salt does', async () => {
    const first = await ask({ cache_salt: 'tenant-a' });
    expect(cached(first)).toBe(0);
    expect(cached(await ask({ cache_salt: 'tenant-a' }))).toBeGreaterThan(0);
    expect(cached(await ask({ cache_salt: 'tenant-b' }))).toBe(0);
    expect(cached(await ask({}))).toBe(0);
    expect(cached(await ask({}))).toBeGreaterThan(0);
  });

  it('GET /health answers without a key; /metrics counts requests and tokens, behind the key', async () => {
    const keyed = createApiServer({ engine, date: DATE, apiKey: 'sk-test' });
    const url = (await listen(keyed)).replace(/\/v1$/, '');
    try {
      const health = await fetch(`${url}/health`);
      expect([health.status, await health.json()]).toEqual([200, { status: 'ok', model: MODEL }]);
      expect((await fetch(`${url}/metrics`)).status).toBe(401);
      const auth = { authorization: 'Bearer sk-test' };
      const chat = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2 }) });
      expect(chat.status).toBe(200);
      await fetch(`${url}/v1/nothing`, { headers: auth });
      const metrics = await fetch(`${url}/metrics`, { headers: auth });
      expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await metrics.text();
      expect(text).toMatch(/^llama_agent_requests_total\{route="\/v1\/chat\/completions",status="200"\} 1$/m);
      expect(text).toMatch(/^llama_agent_requests_total\{route="other",status="404"\} 1$/m);
      expect(text).toMatch(/^llama_agent_requests_total\{route="\/health",status="200"\} 1$/m);
      expect(Number(/^llama_agent_prompt_tokens_total (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(5);
      expect(Number(/^llama_agent_completion_tokens_total (\d+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(1);
      expect(text).toMatch(/^# TYPE llama_agent_generations_queued gauge$/m);
    } finally {
      keyed.closeAllConnections();
      await new Promise((resolve) => keyed.close(resolve));
    }
  });

  it('GET /health is a 503 while no model is loaded', async () => {
    const empty = createApiServer({ engine: { generate: engine.generate.bind(engine), model: null, tokenizer } });
    const url = (await listen(empty)).replace(/\/v1$/, '');
    try {
      const health = await fetch(`${url}/health`);
      expect([health.status, await health.json()]).toEqual([503, { status: 'no model loaded' }]);
    } finally {
      await new Promise((resolve) => empty.close(resolve));
    }
  });
});

describe('n choices from one prompt', () => {
  const request = { model: MODEL, messages: [{ role: 'user' as const, content: 'Tell me a story about a lighthouse.' }], max_tokens: 4, temperature: 1, seed: 7 };

  it('n: 3 gives three choices, each what its own seed gives alone; the prompt is prefilled once', async () => {
    const before = engine.calls.length;
    const r = await client.chat.completions.create({ ...request, n: 3 });
    expect(r.choices.map((c) => c.index)).toEqual([0, 1, 2]);
    const runs = engine.calls.slice(before);
    expect(runs).toHaveLength(3);
    const prompt = runs[0]!.result!.stats.promptTokens;
    for (const run of runs.slice(1)) expect(run.result!.stats.reusedTokens).toBe(prompt - 1);
    expect(r.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: runs.reduce((n, c) => n + c.result!.stats.decodedTokens, 0) });
    for (const [i, choice] of r.choices.entries()) {
      const alone = await client.chat.completions.create({ ...request, seed: 7 + i });
      expect(choice.message.content).toBe(alone.choices[0]!.message.content);
    }
  });

  it('streamed, each choice arrives under its index and ends with its own finish', async () => {
    const stream = await client.chat.completions.create({ ...request, n: 2, stream: true, stream_options: { include_usage: true } });
    const text = ['', ''];
    const finishes: Array<[number, string]> = [];
    let usage = 0;
    for await (const part of stream) {
      for (const c of part.choices) {
        text[c.index] += c.delta.content ?? '';
        if (c.finish_reason) finishes.push([c.index, c.finish_reason]);
      }
      if (part.usage) usage++;
    }
    expect(finishes.map(([i]) => i)).toEqual([0, 1]);
    expect(text.every((t) => t.length > 0)).toBe(true);
    expect(usage).toBe(1);
  });

  it('n beyond 8, or n on text completions, is a 400 naming it', async () => {
    await expect(client.chat.completions.create({ ...request, n: 9 })).rejects.toMatchObject({ status: 400, param: 'n' });
    await expect(client.completions.create({ model: MODEL, prompt: 'x', n: 2 })).rejects.toMatchObject({ status: 400, param: 'n' });
  });
});

describe('log probabilities', () => {
  it('logprobs with top_logprobs: one entry per token, the chosen among the alternatives, greedy picks the most likely', async () => {
    const r = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Name a colour.' }], max_tokens: 5, temperature: 0, logprobs: true, top_logprobs: 3 });
    const content = r.choices[0]!.logprobs!.content!;
    expect(content).toHaveLength(engine.calls.at(-1)!.result!.tokens.length);
    expect(content.map((t) => t.token).join('')).toBe(r.choices[0]!.message.content);
    for (const t of content) {
      expect(t.logprob).toBeLessThanOrEqual(0);
      expect(t.top_logprobs).toHaveLength(3);
      expect(t.top_logprobs[0]!.token).toBe(t.token);
      expect(t.top_logprobs[0]!.logprob).toBeCloseTo(t.logprob, 5);
      expect(Buffer.from(t.bytes ?? []).toString("utf8")).toBe(t.token);
      expect(t.top_logprobs.map((a) => a.logprob)).toEqual([...t.top_logprobs.map((a) => a.logprob)].sort((a, b) => b - a));
    }
    const total = content.reduce((s, t) => s + Math.exp(t.top_logprobs[0]!.logprob), 0);
    expect(total).toBeGreaterThan(0);
  });

  it('without logprobs none are sent; top_logprobs alone or above 20 is a 400', async () => {
    const r = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], max_tokens: 2 });
    expect(r.choices[0]!.logprobs).toBeNull();
    await expect(client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], top_logprobs: 2 })).rejects.toMatchObject({ status: 400, param: 'top_logprobs' });
    await expect(client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], logprobs: true, top_logprobs: 21 })).rejects.toMatchObject({ status: 400, param: 'top_logprobs' });
  });

  it('streamed: the log probabilities arrive before the finish', async () => {
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Name a colour.' }], max_tokens: 4, temperature: 0, logprobs: true, stream: true });
    let tokens = 0;
    let finished = false;
    for await (const part of stream) {
      const c = part.choices[0];
      if (c?.logprobs?.content) {
        expect(finished).toBe(false);
        tokens += c.logprobs.content.length;
      }
      if (c?.finish_reason) finished = true;
    }
    expect(tokens).toBe(engine.calls.at(-1)!.result!.tokens.length);
  });
});

describe('a bounded queue', () => {
  it('past maxQueued waiting generations a completion is a 503 overloaded with Retry-After; the others are answered', async () => {
    const bounded = createApiServer({ engine, date: DATE, maxQueued: 1 });
    const url = await listen(bounded);
    const bClient = new OpenAI({ baseURL: url, apiKey: 'unused', maxRetries: 0 });
    const metricsOf = async () => (await fetch(url.replace(/\/v1$/, '/metrics'))).text();
    try {
      const long = new AbortController();
      const running = await bClient.chat.completions.create(
        { model: MODEL, messages: [{ role: 'user', content: 'Talk for a long time.' }], max_tokens: 3000, stream: true, stop: [] },
        { signal: long.signal },
      );
      const reader = running[Symbol.asyncIterator]();
      await reader.next(); // the engine runs it
      const waiting = bClient.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2 });
      while (!/^llama_agent_generations_queued 1$/m.test(await metricsOf())) await new Promise((r) => setTimeout(r, 20));
      const refused = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }) });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await refused.json()).toMatchObject({ error: { code: 'overloaded', type: 'service_unavailable' } });
      long.abort();
      expect((await waiting).choices).toHaveLength(1);
    } finally {
      bounded.closeAllConnections();
      await new Promise((resolve) => bounded.close(resolve));
    }
  });
});
