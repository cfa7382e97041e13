/**
 * `npm run serve` as people run it (a child process, the micro model, unforced and greedy) driven by
 * the official `openai` client, unmodified: a plain and a streamed completion, the micro model's own
 * code call answered with `role: "tool"`, the bearer key from LLAMA_API_KEY, and the failure statuses.
 * And the Host allow-list on a bind that is not 127.0.0.1.
 */
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT } from '../../../scripts/micro-llama/world';
import { startNpmScript, type NpmScript } from '../../../tests/support/npm-script';
import { rawRequest } from '../../../tests/support/raw-http';

const MICRO = 'micro-llama';
const BUILTINS = { builtin_tools: ['brave_search', 'wolfram_alpha', 'code_interpreter'] };
let server: NpmScript;
let baseURL: string;
let client: OpenAI;

const startServe = (args: string[], env: Record<string, string> = {}) => startNpmScript('serve', args, /serving \S+ at (http:\S+)/, env);

const KEY = 'sesame';
beforeAll(async () => {
  server = await startServe(['--port', '0'], { LLAMA_API_KEY: KEY });
  baseURL = server.url;
  client = new OpenAI({ baseURL, apiKey: KEY, maxRetries: 0 });
}, 120_000);
afterAll(() => server?.stop());

const withBuiltins = (body: ChatCompletionCreateParamsNonStreaming) => ({ ...body, ...BUILTINS }) as ChatCompletionCreateParamsNonStreaming;

describe('npm run serve with the openai client', () => {
  it('prints a loopback URL and lists the loaded model', async () => {
    expect(baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual([MICRO]);
  });

  it('a plain completion and the same question streamed give the same answer', async () => {
    const plain = await client.chat.completions.create({ model: MICRO, messages: [{ role: 'user', content: 'Hello!' }] });
    expect(plain.choices[0]!.finish_reason).toBe('stop');
    // Exactly one of the greetings the micro model was trained to give (which one is the model's choice).
    const greetings = CHAT.train.find((c) => c.question === 'Hello!')!.answers;
    expect(greetings).toContain(plain.choices[0]!.message.content);
    const stream = await client.chat.completions.create({ model: MICRO, messages: [{ role: 'user', content: 'Hello!' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let pieces = 0;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta.content;
      if (delta) (text += delta), pieces++;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(plain.choices[0]!.message.content);
    expect(pieces).toBeGreaterThan(1);
    // The same prompt again: everything but the last id comes from the cache.
    expect(usage!.prompt_tokens_details!.cached_tokens).toBe(usage!.prompt_tokens - 1);
  });

  it("the model's own code call → role tool → the answer; the second request prefills only what was appended", async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Use Python to add up the numbers from 1 to 100.' }];
    const first = await client.chat.completions.create(withBuiltins({ model: MICRO, messages }));
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.type === 'function' && call.function.name).toBe('code_interpreter');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ code: 'print(sum(range(1, 100 + 1)))' });
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '{"stdout": "5050\\n"}' });
    const second = await client.chat.completions.create(withBuiltins({ model: MICRO, messages }));
    expect(second.choices[0]!.message.content).toContain('5050');
    const cached = first.usage!.prompt_tokens + first.usage!.completion_tokens - 1; // the prompt and the call, not its eom
    expect(second.usage!.prompt_tokens_details!.cached_tokens).toBe(cached);
    console.log(`serve cache reuse: second request ${second.usage!.prompt_tokens} prompt tokens, ${cached} cached, ${second.usage!.prompt_tokens - cached} prefilled`);
  });

  it('the key from LLAMA_API_KEY is required: a wrong or missing one is a 401', async () => {
    const wrong = new OpenAI({ baseURL, apiKey: 'guess', maxRetries: 0 });
    await expect(wrong.models.list()).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
    const missing = await fetch(`${baseURL}/models`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { type: 'authentication_error', message: expect.stringContaining('missing the API key') } });
  });

  it('failures in OpenAI error shape: unknown model 404, unsupported field 400, context overflow 400', async () => {
    await expect(client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
    await expect(client.chat.completions.create({ model: MICRO, messages: [{ role: 'user', content: 'x' }], top_logprobs: 2 })).rejects.toMatchObject({ status: 400, param: 'top_logprobs' });
    await expect(client.chat.completions.create({ model: MICRO, messages: [{ role: 'user', content: 'word '.repeat(2000) }] })).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded' });
  });

  it('context_policy (the extension) over HTTP: a chat over the 1,024-token window is answered once the oldest exchanges are dropped', async () => {
    const messages = [
      ...Array.from({ length: 12 }, (_, i) => [
        { role: 'user' as const, content: `Question ${i}: ${'word '.repeat(120)}` },
        { role: 'assistant' as const, content: `Answer ${i}.` },
      ]).flat(),
      { role: 'user' as const, content: 'What is the capital of Japan?' },
    ];
    await expect(client.chat.completions.create({ model: MICRO, messages, max_tokens: 8 })).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded' });
    const r = await client.chat.completions.create({ model: MICRO, messages, max_tokens: 8, context_policy: 'rolling' } as never);
    expect(r.choices[0]!.finish_reason).toMatch(/^(stop|length|tool_calls)$/);
    expect(r.usage!.prompt_tokens + 8).toBeLessThanOrEqual(1024);
  });
});

describe('the Host allow-list on a bind that is not 127.0.0.1', () => {
  const started: NpmScript[] = [];
  afterAll(() => started.forEach((s) => s.stop()));
  const statusFor = (server: NpmScript) => {
    const { hostname, port } = new URL(server.url);
    return async (host: string) => (await rawRequest({ host: hostname, port: Number(port), target: '/v1/models', headers: { Host: host } })).status;
  };

  it('--host 127.0.0.2 (a loopback alias): another name (DNS rebinding) is a 403, the bound address and loopback pass', async () => {
    const alias = await startServe(['--port', '0', '--host', '127.0.0.2']);
    started.push(alias);
    const port = new URL(alias.url).port;
    expect(alias.url).toBe(`http://127.0.0.2:${port}/v1`);
    const status = statusFor(alias);
    expect(await status('evil.example')).toBe(403);
    expect(await status(`evil.example:${port}`)).toBe(403);
    expect(await status(`127.0.0.2:${port}`)).toBe(200);
    expect(await status(`localhost:${port}`)).toBe(200);
  }, 120_000);

  it('--allowed-host adds a name (any case, repeatable); other names stay refused', async () => {
    const named = await startServe(['--port', '0', '--host', '127.0.0.3', '--allowed-host', 'llama.internal', '--allowed-host', 'gpu.example']);
    started.push(named);
    const port = new URL(named.url).port;
    const status = statusFor(named);
    expect(await status(`LLAMA.internal:${port}`)).toBe(200);
    expect(await status('gpu.example')).toBe(200);
    expect(await status(`127.0.0.3:${port}`)).toBe(200);
    expect(await status(`evil.example:${port}`)).toBe(403);
  }, 120_000);
});
