import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, preview } from 'vite';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startBraveWolframFake, type BraveWolframFake } from '../../tests/fakes/brave-wolfram-fake';
import { rawRequest } from '../../tests/support/raw-http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startToolProxyServer, toolProxy, toolProxyMiddleware, type ToolProxyOptions } from './tool-proxy';

let fake: BraveWolframFake;
let root: string;
let options: ToolProxyOptions;

beforeAll(async () => {
  fake = await startBraveWolframFake();
  root = await mkdtemp(join(tmpdir(), 'tool-proxy-'));
  await writeFile(join(root, 'index.html'), '<!doctype html><title>page</title>');
  await mkdir(join(root, 'dist'));
  await writeFile(join(root, 'dist', 'index.html'), '<!doctype html><title>built</title>');
});
afterAll(async () => {
  await fake.close();
  await rm(root, { recursive: true, force: true });
});
beforeEach(() => {
  fake.reset();
  options = fake.proxyOptions();
});

/** The same two checks against any server: an endpoint answers, other paths are not ours. */
async function checkServer(base: string): Promise<void> {
  const search = await fetch(`${base}/api/tools/brave_search?q=Reykjavik&count=2`);
  expect(search.status).toBe(200);
  expect(((await search.json()) as { web: { results: unknown[] } }).web.results).toHaveLength(2);
  const wolfram = await fetch(`${base}/api/tools/wolfram_alpha?input=2%2B2`);
  expect(await wolfram.text()).toContain('Result:');
  expect(fake.requests.map((r) => r.service)).toEqual(['brave', 'wolfram']);
}

describe('startToolProxyServer', () => {
  it('serves the endpoints on loopback and 404 JSON elsewhere', async () => {
    const proxy = await startToolProxyServer(options);
    try {
      expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(proxy.toolsBase).toBe(`${proxy.url}/api/tools/`);
      await checkServer(proxy.url);
      const other = await fetch(`${proxy.url}/elsewhere`);
      expect(other.status).toBe(404);
      expect(await other.json()).toEqual({ error: 'not found' });
    } finally {
      await proxy.close();
    }
  });

  it('a malformed request target is a 400, nothing goes upstream, and the server goes on serving', async () => {
    const proxy = await startToolProxyServer(options);
    try {
      const port = Number(new URL(proxy.url).port);
      for (const target of ['//[', 'http://[', '/api/tools/brave_search?q=%E0%A4%A', '/api/tools/brave_search%E0%A4%A']) {
        const r = await rawRequest({ host: '127.0.0.1', port, target });
        expect(r.status, target).toBe(400);
        expect(JSON.parse(r.body).error, target).toMatch(/request (target|path)/);
      }
      expect(fake.requests).toEqual([]);
      await checkServer(proxy.url);
    } finally {
      await proxy.close();
    }
  });

  it('a client that hangs up aborts the upstream request', async () => {
    fake.setMode('brave', 'slow');
    const proxy = await startToolProxyServer(options);
    try {
      const controller = new AbortController();
      const pending = fetch(`${proxy.url}/api/tools/brave_search?q=a`, { signal: controller.signal });
      await expect.poll(() => fake.requests.length).toBe(1);
      controller.abort();
      await expect(pending).rejects.toThrow();
      await expect.poll(() => fake.requests[0]?.clientClosedEarly).toBe(true);
    } finally {
      await proxy.close();
    }
  });
});

describe('toolProxy vite plugin', () => {
  it('adds the endpoints to the dev server and leaves other paths to vite', async () => {
    const server = await createServer({
      root,
      configFile: false,
      logLevel: 'silent',
      plugins: [toolProxy(options)],
      server: { host: '127.0.0.1', port: 0, hmr: false, watch: null },
    });
    await server.listen();
    try {
      const { port } = server.httpServer!.address() as AddressInfo;
      const base = `http://127.0.0.1:${port}`;
      await checkServer(base);
      expect(await (await fetch(`${base}/`)).text()).toContain('<title>page</title>');
    } finally {
      await server.close();
    }
  });

  it('adds the endpoints to the preview server', async () => {
    const server = await preview({
      root,
      configFile: false,
      logLevel: 'silent',
      plugins: [toolProxy(options)],
      preview: { host: '127.0.0.1', port: 0 },
    });
    try {
      const { port } = server.httpServer.address() as AddressInfo;
      const base = `http://127.0.0.1:${port}`;
      await checkServer(base);
      expect(await (await fetch(`${base}/`)).text()).toContain('<title>built</title>');
    } finally {
      await server.close();
    }
  });
});

describe('who may spend the keys', () => {
  const call = (remoteAddress: string, allowRemoteClients?: boolean) =>
    new Promise<{ status: number; body: string; next: boolean }>((resolve) => {
      const req = { url: '/api/tools/brave_search?q=x', method: 'GET', headers: {}, socket: { remoteAddress } } as unknown as IncomingMessage;
      const res = {
        destroyed: false,
        writableEnded: false,
        on: () => res,
        writeHead(status: number) {
          this.status = status;
        },
        end(body: string) {
          resolve({ status: this.status, body, next: false });
        },
        status: 0,
      };
      toolProxyMiddleware({ env: {}, allowRemoteClients })(req, res as unknown as ServerResponse, () => resolve({ status: 0, body: '', next: true }));
    });

  it('another machine is refused unless remote clients are allowed', async () => {
    const refused = await call('10.0.0.5');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatch(/TOOL_PROXY_ALLOW_REMOTE=1/);
    expect((await call('10.0.0.5', true)).status).toBe(503); // allowed through: then "no key"
    expect((await call('127.0.0.1')).status).toBe(503);
    expect((await call('::1')).status).toBe(503);
  });
});
