/**
 * The server on an engine with several KV-cache slots, driven by the official `openai` client: many
 * clients at once each get exactly the answer they get alone, and a client that leaves mid-stream stops
 * its own generation and leaves its slot consistent. The answers alone come from a one-slot engine.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT } from '../../../scripts/micro-llama/world';
import type { ApiEngine } from '../../api/api-engine';
import type { GenerateRequest, GenerateResult } from '../../engine/contract';
import { loadTokenizer } from '../../format/tokenizer/load-node';
import { createNodeEngine } from '../../../worker/create-node-engine';
import type { Engine } from '../../../worker/engine';
import { createApiServer } from './api-server';

const tokenizer = loadTokenizer();
const DATE = '11 August 2026';

interface Served {
  engine: Engine;
  server: Server;
  client: OpenAI;
  /** Every generation the engine was asked for, in order. */
  runs: Array<{ request: GenerateRequest; result: Promise<GenerateResult> }>;
  /** The most slots busy at once, seen when each generation started. */
  maxBusy: number;
}

async function serve(model: string, slots: number, maxQueued = 64): Promise<Served> {
  const engine = createNodeEngine();
  await engine.load(model, { slots });
  const served: Served = { engine, server: null as unknown as Server, client: null as unknown as OpenAI, runs: [], maxBusy: 0 };
  const api: ApiEngine = {
    get model() {
      return engine.model;
    },
    slotUsage: () => engine.slotUsage(),
    generate: (request, onIds, signal) => {
      const result = engine.generate(request, onIds, signal);
      served.runs.push({ request, result });
      void Promise.resolve().then(() => (served.maxBusy = Math.max(served.maxBusy, engine.slotUsage()?.busy ?? 0)));
      return result;
    },
  };
  served.server = createApiServer({ engine: api, tokenizer, date: DATE, maxQueued });
  await new Promise<void>((resolve) => served.server.listen(0, '127.0.0.1', resolve));
  served.client = new OpenAI({ baseURL: `http://127.0.0.1:${(served.server.address() as AddressInfo).port}/v1`, apiKey: 'unused', maxRetries: 0 });
  return served;
}

async function close(s: Served | undefined): Promise<void> {
  if (!s) return;
  s.server.closeAllConnections();
  await new Promise((resolve) => s.server.close(resolve));
  await s.engine.unload();
}

const answer = async (client: OpenAI, body: ChatCompletionCreateParamsNonStreaming): Promise<string> => (await client.chat.completions.create(body)).choices[0]!.message.content ?? '';

describe('several clients at once on a four-slot engine (micro model)', () => {
  let slotted: Served;
  let alone: Served;
  beforeAll(async () => {
    [slotted, alone] = await Promise.all([serve('micro-llama', 4), serve('micro-llama', 1)]);
  }, 60_000);
  afterAll(() => Promise.all([close(slotted), close(alone)]));

  it('50 concurrent requests, greedy and seeded, are each answered exactly as when sent alone', async () => {
    const questions = CHAT.train.map((c) => c.question);
    const bodies: ChatCompletionCreateParamsNonStreaming[] = Array.from({ length: 50 }, (_, i) => ({
      model: 'micro-llama',
      messages: [{ role: 'user', content: questions[i % questions.length]! }],
      ...(i % 2 === 0 ? { temperature: 0 } : { temperature: 1, seed: 1000 + i }),
    }));
    const expected: string[] = [];
    for (const body of bodies) expected.push(await answer(alone.client, body));
    const got = await Promise.all(bodies.map((body) => answer(slotted.client, body)));
    expect(got).toEqual(expected);
    expect(new Set(got).size).toBeGreaterThan(5);
    expect(slotted.maxBusy).toBeGreaterThan(1);
    const metrics = await (await fetch(`${slotted.client.baseURL}/../metrics`)).text();
    expect(metrics).toMatch(/^llama_agent_kv_cache_slots 4$/m);
  }, 120_000);
});

describe('a client that leaves mid-stream (tiny model, four slots)', () => {
  let slotted: Served;
  let alone: Served;
  beforeAll(async () => {
    [slotted, alone] = await Promise.all([serve('tiny-llama', 4), serve('tiny-llama', 1)]);
  }, 60_000);
  afterAll(() => Promise.all([close(slotted), close(alone)]));

  it('stops its generation only; the same request later gets the answer it gets alone', async () => {
    const body = { model: 'tiny-llama', messages: [{ role: 'user' as const, content: 'Talk' }], temperature: 0, max_tokens: 300 };
    // Another client's generation runs beside it throughout.
    const other = { ...body, messages: [{ role: 'user' as const, content: 'Talk about something else' }], max_tokens: 120 };
    const besideIt = answer(slotted.client, other);
    const stream = await slotted.client.chat.completions.create({ ...body, stream: true });
    let pieces = 0;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content && ++pieces === 3) break; // leaving the loop closes the connection
    }
    const run = slotted.runs.find((r) => r.request.maxTokens === 300)!;
    const left = await run.result;
    expect(left.stop).toBe('abort');
    expect(left.stats.decodedTokens).toBeLessThan(300);
    // Its slot holds exactly the prompt and what was emitted before the abort (the last id unfed).
    expect(slotted.engine.cachedSlots()).toContainEqual([...run.request.tokens, ...left.tokens.slice(0, -1)]);
    expect(await besideIt).toBe(await answer(alone.client, other));
    const again = await slotted.client.chat.completions.create(body);
    expect(again.choices[0]!.message.content).toBe(await answer(alone.client, body));
  }, 120_000);
});

describe('more clients than slots (tiny model, two slots, one request may wait)', () => {
  let bounded: Served;
  beforeAll(async () => {
    bounded = await serve('tiny-llama', 2, 1);
  }, 60_000);
  afterAll(() => close(bounded));

  it('two generate at once, a third waits for a slot, a fourth is a 503 with Retry-After; the third is served when one leaves', async () => {
    const metricsOf = async () => (await fetch(new URL('/metrics', bounded.client.baseURL))).text();
    const long = { model: 'tiny-llama', messages: [{ role: 'user' as const, content: 'Talk for a long time.' }], max_tokens: 3000, stream: true as const, stop: [] };
    const leaving = new AbortController();
    const streams = [];
    for (let k = 0; k < 2; k++) {
      const stream = await bounded.client.chat.completions.create(long, { signal: leaving.signal });
      const chunks = stream[Symbol.asyncIterator]();
      await chunks.next(); // the engine runs it
      streams.push(chunks);
    }
    const metrics = await metricsOf();
    expect(metrics).toMatch(/^llama_agent_generations_running 2$/m);
    expect(metrics).toMatch(/^llama_agent_generations_queued 0$/m);
    const waiting = bounded.client.chat.completions.create({ model: 'tiny-llama', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2 });
    while (!/^llama_agent_generations_queued 1$/m.test(await metricsOf())) await new Promise((r) => setTimeout(r, 20));
    const refused = await fetch(`${bounded.client.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tiny-llama', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    leaving.abort();
    expect((await waiting).choices).toHaveLength(1);
  }, 120_000);
});
