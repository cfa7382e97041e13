/**
 * An engine server in front of an engine server: the project's remote backend (what `ask --engine`,
 * the page's "engine server" and `serve --engine` use) driving this project's own server, in process,
 * with the micro model. The front engine gets the ids, the stop id and the cache report the back one
 * produced, and the fields the remote backend sends are the ones the server implements.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MICRO_E2E_RENDER_OPTIONS } from '../../../scripts/micro-llama/e2e-cases';
import type { GenerateRequest } from '../../engine/contract';
import { renderIds } from '../../format/render';
import { EOT } from '../../format/special-tokens';
import { loadTokenizer } from '../../format/tokenizer/load-node';
import { createNodeEngine } from '../../../worker/create-node-engine';
import type { Engine } from '../../../worker/engine';
import { createApiServer } from './api-server';

const tokenizer = loadTokenizer();
let back: Engine;
let front: Engine;
let server: Server;
let url: string;

beforeAll(async () => {
  back = createNodeEngine();
  await back.load('micro-llama');
  server = createApiServer({ engine: back, tokenizer });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  front = createNodeEngine();
}, 60_000);
afterAll(async () => {
  await front?.unload();
  server?.close();
  await back?.unload();
});

const hello = (): GenerateRequest => ({
  tokens: renderIds({ ...MICRO_E2E_RENDER_OPTIONS, messages: [{ role: 'user', content: 'Hello!' }] }, tokenizer),
  maxTokens: 64,
  sampling: { temperature: 0 },
});

describe('the remote backend in front of npm run serve', () => {
  it('knows the server as llama-agent, with its model and context window', async () => {
    const info = await front.load({ kind: 'server', url });
    expect(info).toMatchObject({ modelId: 'micro-llama', backend: 'remote', device: `llama-agent at ${url}`, contextWindow: 1024 });
  });

  it('gets the same ids and stop as the engine behind it, and the second time the cache the server reused', async () => {
    const direct = await back.generate(hello());
    expect(direct.stop).toBe('eot');
    const first = await front.generate(hello());
    expect(first.tokens).toEqual(direct.tokens);
    expect(first).toMatchObject({ stop: 'eot', stopId: EOT });
    const again = await front.generate(hello());
    expect(again.tokens).toEqual(direct.tokens);
    expect(again.stats.reusedTokens).toBe(hello().tokens.length - 1);
  });

  it('seeded sampling with every setting the backend sends (penalties, window, bias) is the engine’s own result', async () => {
    const request: GenerateRequest = {
      ...hello(),
      maxTokens: 24,
      sampling: { seed: 11, temperature: 0.9, topP: 0.95, topK: 40, minP: 0.01, repetitionPenalty: 1.1, penaltyWindow: 16, frequencyPenalty: 0.2, presencePenalty: 0.1, logitBias: { 9906: -5 } },
    };
    const direct = await back.generate(request);
    const remote = await front.generate(request);
    expect(remote.tokens).toEqual(direct.tokens);
    expect(remote.stop).toBe(direct.stop);
  });

  it('a cache salt reaches the server: another salt reuses nothing of the first one’s cache there', async () => {
    const salted = (cacheSalt: string): GenerateRequest => ({ ...hello(), cacheSalt });
    await front.generate(salted('client-a'));
    expect((await front.generate(salted('client-a'))).stats.reusedTokens).toBe(hello().tokens.length - 1);
    expect((await front.generate(salted('client-b'))).stats.reusedTokens).toBe(0);
  });

  it('a constraint is refused unsent, in words (the server enforces constraints on chat completions, not on raw prompts)', async () => {
    await expect(front.generate({ ...hello(), constraint: { type: 'json_object' } })).rejects.toMatchObject({ code: 'invalid_constraint' });
  });
});

describe('the fields llama-server and vLLM clients send to /v1/completions', () => {
  const complete = async (fields: Record<string, unknown>) => {
    const res = await fetch(`${url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'micro-llama', max_tokens: 48, temperature: 0, ...fields }),
    });
    return { status: res.status, body: (await res.json()) as { choices: Array<Record<string, unknown>>; error?: { param?: string; message: string } } };
  };
  const question = (q: string) => renderIds({ ...MICRO_E2E_RENDER_OPTIONS, messages: [{ role: 'user', content: q }] }, tokenizer);

  it('return_token_ids: the ids of the text with the stop id last, the prompt, and vLLM’s stop_reason', async () => {
    const prompt = question('Hello!');
    const direct = await back.generate({ tokens: prompt, maxTokens: 48, sampling: { temperature: 0 } });
    const { status, body } = await complete({ prompt, return_token_ids: true, stop_token_ids: [EOT] });
    expect(status).toBe(200);
    expect(body.choices[0]).toMatchObject({ token_ids: [...direct.tokens, EOT], prompt_token_ids: prompt, stop_reason: EOT, finish_reason: 'stop', text: tokenizer.decode(direct.tokens) });
  });

  it('skip_special_tokens drops the python tag from the text; without it the tag stays as text', async () => {
    const prompt = question('What is 37 * 48?');
    const kept = await complete({ prompt });
    const skipped = await complete({ prompt, skip_special_tokens: true });
    const text = kept.body.choices[0]!.text as string;
    expect(text.startsWith('<|python_tag|>')).toBe(true);
    expect(skipped.body.choices[0]!.text).toBe(text.replace('<|python_tag|>', ''));
  });

  it('repeat_last_n is the penalties’ window (-1: all ids); stop_token_ids other than Llama 3.1’s stops are refused by name', async () => {
    const prompt = question('Hello!');
    const windowed = await complete({ prompt, repetition_penalty: 1.3, repeat_last_n: 4, seed: 1, temperature: 0.8 });
    const direct = await back.generate({ tokens: prompt, maxTokens: 48, sampling: { temperature: 0.8, seed: 1, repetitionPenalty: 1.3, penaltyWindow: 4 } });
    expect(windowed.body.choices[0]!.text).toBe(tokenizer.decode(direct.tokens));
    expect((await complete({ prompt, repeat_last_n: -1 })).status).toBe(200);
    expect((await complete({ prompt, repeat_last_n: -2 })).body.error).toMatchObject({ param: 'repeat_last_n' });
    const refused = await complete({ prompt, stop_token_ids: [EOT, 13] });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ param: 'stop_token_ids[1]', message: expect.stringContaining('128001, 128008, 128009') });
  });
});
