/**
 * The engine proxy's upstream timeout, with a fake engine server that goes silent: silent before its
 * headers → a 504 in words within the timeout; silent mid-stream → the client's stream ends abruptly;
 * either way the upstream request is aborted. A stream slower than the timeout in total, but never
 * silent that long, passes whole.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { engineProxyMiddleware, type EngineProxyOptions } from './engine-proxy';

const TIMEOUT_MS = 300;
type Behaviour = (req: IncomingMessage, res: ServerResponse) => void;
let behaviour: Behaviour;
/** Resolves when the proxy's request to the fake engine is closed (answered or aborted). */
let upstreamClosed: Promise<void>;
let upstream: Server;
let upstreamUrl: string;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const open: Server[] = [];
async function startProxy(options: EngineProxyOptions): Promise<string> {
  const middleware = engineProxyMiddleware(options);
  const server = createServer((req, res) => middleware(req, res, () => res.writeHead(404).end()));
  open.push(server);
  return listen(server);
}

beforeAll(async () => {
  upstream = createServer((req, res) => {
    upstreamClosed = new Promise((resolve) => res.on('close', resolve));
    behaviour(req, res);
  });
  open.push(upstream);
  upstreamUrl = await listen(upstream);
});
beforeEach(() => {
  upstreamClosed = new Promise(() => {});
});
afterAll(async () => {
  for (const server of open) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const sse = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' });

describe('the engine proxy upstream timeout', () => {
  it('an engine that never answers: 504 in words within the timeout, and the upstream request is aborted', async () => {
    behaviour = () => {}; // reads the request, never answers
    const proxy = await startProxy({ env: { LLAMA_ENGINE_URL: upstreamUrl }, timeoutMs: TIMEOUT_MS });
    const started = Date.now();
    const r = await fetch(`${proxy}/api/engine/v1/models`);
    const elapsed = Date.now() - started;
    expect(r.status).toBe(504);
    expect(await r.json()).toEqual({ error: 'the engine server (LLAMA_ENGINE_URL) sent no answer within 0.3 s (LLAMA_ENGINE_TIMEOUT_MS)' });
    // It waited for the timeout; the answer's words say the timeout, not something else, ended it.
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    await upstreamClosed;
  });

  it('the timeout comes from LLAMA_ENGINE_TIMEOUT_MS when no option sets it; a value that is not a number is a 500 that says so', async () => {
    behaviour = () => {};
    const fromEnv = await startProxy({ env: { LLAMA_ENGINE_URL: upstreamUrl, LLAMA_ENGINE_TIMEOUT_MS: '200' } });
    const r = await fetch(`${fromEnv}/api/engine/v1/models`);
    expect(r.status).toBe(504);
    expect(await r.json()).toEqual({ error: expect.stringContaining('within 0.2 s') });
    const wrong = await startProxy({ env: { LLAMA_ENGINE_URL: upstreamUrl, LLAMA_ENGINE_TIMEOUT_MS: '5m' } });
    const bad = await fetch(`${wrong}/api/engine/v1/models`);
    expect(bad.status).toBe(500);
    expect(await bad.json()).toEqual({ error: 'LLAMA_ENGINE_TIMEOUT_MS must be a positive whole number of milliseconds' });
  });

  it('an engine that stalls mid-stream: the client gets what was sent, then its stream ends abruptly; the upstream request is aborted', async () => {
    behaviour = (_req, res) => {
      sse(res);
      res.write('data: {"content":"first"}\n\n'); // then silence
    };
    const proxy = await startProxy({ env: { LLAMA_ENGINE_URL: upstreamUrl }, timeoutMs: TIMEOUT_MS });
    const r = await fetch(`${proxy}/api/engine/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"stream":true}' });
    expect(r.status).toBe(200);
    const reader = r.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: {"content":"first"}\n\n');
    const started = Date.now();
    await expect(reader.read()).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 2000);
    await upstreamClosed;
  });

  it('a stream slower than the timeout in total, never silent that long, passes whole', async () => {
    behaviour = (_req, res) => {
      sse(res);
      let n = 0;
      const timer = setInterval(() => {
        res.write(`data: ${n}\n\n`);
        if (++n === 6) {
          clearInterval(timer);
          res.end();
        }
      }, TIMEOUT_MS / 2);
    };
    const proxy = await startProxy({ env: { LLAMA_ENGINE_URL: upstreamUrl }, timeoutMs: TIMEOUT_MS });
    const started = Date.now();
    const r = await fetch(`${proxy}/api/engine/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"stream":true}' });
    expect(await r.text()).toBe([0, 1, 2, 3, 4, 5].map((n) => `data: ${n}\n\n`).join(''));
    expect(Date.now() - started).toBeGreaterThan(2 * TIMEOUT_MS);
  });
});
