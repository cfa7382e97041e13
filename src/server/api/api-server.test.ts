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
import { forceSteps, scriptIds } from '../../agent/scripted-output';
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
