/**
 * The engine proxy doing its job on the real vite dev server: the remote backend reaches a real
 * llama-server through /api/engine/ exactly as it does directly (same ids, the server's cache report),
 * the stream is passed on as it arrives, a client that leaves stops the upstream request, and every
 * failure (no upstream configured, upstream down or lost mid-stream, a bad request) is an answer in
 * words. The attacks are in engine-proxy-attacks.test.ts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../../tests/fakes/completions-fixture-server';
import { startLlamaServer, type LlamaServer } from '../../tests/support/llama-server';
import { samplingRequest, STOP_ID_LIST } from '../../tests/support/sampling-request';
import { createRemoteBackend } from '../../worker/backends/remote-backend';
import { engineProxy } from './engine-proxy';

const env: Record<string, string | undefined> = {};
let llama: LlamaServer;
let fixture: FixtureServer;
let root: string;
let base: string;
let close: () => Promise<void>;
const PROMPT = [128000, 128006, 882, 128007, 271, 9906, 0, 128009, 128006, 78191, 128007, 271];

beforeAll(async () => {
  [llama, fixture] = await Promise.all([startLlamaServer(), startFixtureServer()]);
  root = await mkdtemp(join(tmpdir(), 'engine-proxy-'));
  await writeFile(join(root, 'index.html'), '<!doctype html><title>page</title>');
  const dev = await createServer({ root, configFile: false, logLevel: 'silent', plugins: [engineProxy({ env, maxBodyBytes: 64 * 1024 })], server: { port: 0, hmr: false, watch: null } });
  await dev.listen();
  base = `http://127.0.0.1:${(dev.httpServer!.address() as AddressInfo).port}`;
  close = () => dev.close();
}, 120_000);
afterAll(async () => {
  await close?.();
  await llama?.stop();
  await fixture?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const proxied = () => `${base}/api/engine/`;

async function generate(url: string, prompt: readonly number[], o: Parameters<typeof samplingRequest>[1] = {}) {
  const backend = await createRemoteBackend({ url });
  const ids: number[] = [];
  const outcome = await backend.generate(samplingRequest(prompt, o), (batch) => ids.push(...batch), new AbortController().signal);
  return { ids, outcome, backend };
}

describe('the engine proxy in front of a real llama-server', () => {
  it('serves what the server serves and the same greedy ids, with the server’s own cache report', async () => {
    env.LLAMA_ENGINE_URL = llama.url;
    const direct = await generate(llama.url, PROMPT);
    const through = await generate(proxied(), PROMPT);
    expect(through.backend.server).toEqual(direct.backend.server);
    expect(through.backend.device).toBe(`llama.cpp at ${proxied()}`);
    expect(through.ids).toEqual(direct.ids);
    expect(through.ids.at(-1)).toBe(128009);
    // The same prompt again: llama-server reuses all of it but the last id, and says so through the proxy.
    expect(through.outcome).toMatchObject({ reusedTokens: PROMPT.length - 1, evaluatedTokens: 1 });
  });

  it('the server killed: server_unreachable in words; restarted: the next request works, its cache empty', async () => {
    env.LLAMA_ENGINE_URL = llama.url;
    const backend = await createRemoteBackend({ url: proxied() });
    await llama.kill();
    const failure = await backend.generate(samplingRequest(PROMPT), () => {}, new AbortController().signal).then(() => null, (e: unknown) => e);
    expect(failure).toMatchObject({ name: 'EngineError', code: 'server_unreachable', message: expect.stringMatching(/behind .*\/api\/engine\/ cannot be reached \(502\): .*connection refused/) });
    await llama.restart();
    const { ids, outcome } = await generate(proxied(), PROMPT);
    expect(ids.at(-1)).toBe(128009);
    expect(outcome.reusedTokens).toBe(0);
  });
});

describe('the engine proxy, streaming and failures', () => {
  it('passes each event on as it arrives; a client that leaves ends the upstream request', async () => {
    env.LLAMA_ENGINE_URL = fixture.url;
    let release!: () => void;
    const until = new Promise<void>((resolve) => (release = resolve));
    const event = (id: number) => JSON.stringify({ choices: [{ text: '', logprobs: { content: [{ id }] } }] });
    fixture.completions = { sse: [event(11), event(12), event(13)], pauseAfter: { events: 1, until } };
    const controller = new AbortController();
    const res = await fetch(`${proxied()}v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"prompt":[1]}', signal: controller.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    // The first event arrives while upstream still holds the rest: nothing is buffered on the way.
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe(`data: ${event(11)}\n\n`);
    controller.abort();
    await reader.read().catch(() => {});
    const upstreamRequest = fixture.requests.at(-1)!;
    await expect.poll(() => upstreamRequest.closedEarly).toBe(true);
    release();
  });

  it('an upstream lost mid-stream reaches the client as a lost connection: server_unreachable', async () => {
    env.LLAMA_ENGINE_URL = fixture.url;
    const event = (id: number) => JSON.stringify({ choices: [{ text: 'x', logprobs: { content: [{ id }] } }] });
    fixture.models = { status: 200, json: { data: [{ id: 'm', owned_by: 'llamacpp' }] } };
    fixture.completions = { sse: [event(11), event(12), event(13)], dropAfter: 2 };
    const backend = await createRemoteBackend({ url: proxied() });
    const ids: number[] = [];
    const failure = await backend.generate(samplingRequest(PROMPT, { ban: STOP_ID_LIST }), (batch) => ids.push(...batch), new AbortController().signal).then(() => null, (e: unknown) => e);
    expect(ids).toEqual([11, 12]);
    expect(failure).toMatchObject({ code: 'server_unreachable', message: expect.stringMatching(/lost during generation|ended the stream mid-generation/) });
  });

  it('no LLAMA_ENGINE_URL: 503 saying what to set; the backend reports it in words', async () => {
    env.LLAMA_ENGINE_URL = undefined;
    const res = await fetch(`${proxied()}v1/models`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: 'the engine proxy has no engine server: LLAMA_ENGINE_URL is not set', setup: expect.stringContaining('LLAMA_ENGINE_API_KEY') });
    await expect(createRemoteBackend({ url: proxied() })).rejects.toMatchObject({ code: 'server_error', message: expect.stringContaining('LLAMA_ENGINE_URL is not set') });
    env.LLAMA_ENGINE_URL = 'http://user:secret@127.0.0.1:1';
    expect((await fetch(`${proxied()}v1/models`)).status).toBe(503);
  });

  it('bad requests are answered in words and sent nowhere', async () => {
    env.LLAMA_ENGINE_URL = fixture.url;
    const before = fixture.requests.length;
    const cases: Array<[string, RequestInit, number, RegExp]> = [
      ['v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }, 404, /no engine endpoint "v1\/chat\/completions": use v1\/models or v1\/completions/],
      ['v1/completions', {}, 405, /GET is not allowed: use POST/],
      ['v1/models', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }, 405, /use GET/],
      ['v1/completions', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }, 415, /application\/json/],
      ['v1/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"prompt":[${'1,'.repeat(40_000)}1]}` }, 413, /over 65536 bytes/],
    ];
    for (const [path, init, status, error] of cases) {
      const res = await fetch(`${proxied()}${path}`, init);
      expect([path, res.status]).toEqual([path, status]);
      expect(((await res.json()) as { error: string }).error).toMatch(error);
    }
    expect(fixture.requests.length).toBe(before);
  });
});
