/**
 * The engine proxy (/api/engine/) under attack, over real HTTP, on the real vite dev and preview
 * servers (listening on every address, as `vite --host` does) in front of a loopback fake engine
 * server that redirects, echoes the key and reflects headers. "Another machine" is a real client in
 * a network namespace (tests/support/netns.ts). Every refusal ends by checking that nothing reached
 * the upstream and that a plain request still works.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keySpellings } from '../../tests/fakes/brave-wolfram-fake';
import { startFixtureServer, type FixtureServer } from '../../tests/fakes/completions-fixture-server';
import { createNetns, type Netns } from '../../tests/support/netns';
import { requestsFromNetns } from '../../tests/support/netns-requests';
import { rawRequest, type RawRequest, type RawResponse } from '../../tests/support/raw-http';
import { startDevAndPreview, type RunningServers } from '../../tests/support/vite-servers';
import { engineProxy } from './engine-proxy';

const KEY = "engine key+'()!~*/?&=x";
const LISTED = 'https://host.example';
const MODELS = '/api/engine/v1/models';
const COMPLETIONS = '/api/engine/v1/completions';
const SERVED = { object: 'list', data: [{ id: 'llama-3.1-70b', owned_by: 'vllm', max_model_len: 32768 }] };

let upstream: FixtureServer;
/** Where a redirect points: must never be asked anything. */
let elsewhere: FixtureServer;
let netns: Netns;
let root: string;
let servers: RunningServers;

beforeAll(async () => {
  [upstream, elsewhere, netns] = await Promise.all([startFixtureServer(), startFixtureServer(), createNetns()]);
  root = await mkdtemp(join(tmpdir(), 'engine-proxy-attacks-'));
  await writeFile(join(root, 'index.html'), '<!doctype html><title>page</title>');
  const plugins = () => [engineProxy({ env: { LLAMA_ENGINE_URL: upstream.url, LLAMA_ENGINE_API_KEY: KEY }, corsOrigins: [LISTED] })];
  servers = await startDevAndPreview(root, plugins, root);
}, 120_000);
afterAll(async () => {
  await servers.dev?.close();
  await servers.preview?.close();
  await netns?.remove();
  await upstream?.close();
  await elsewhere?.close();
  if (root) await rm(root, { recursive: true, force: true });
});
beforeEach(() => {
  upstream.requests.length = 0;
  elsewhere.requests.length = 0;
  upstream.models = { status: 200, json: SERVED };
  upstream.completions = { sse: ['{"choices":[{"text":"","logprobs":{"content":[{"id":9906}]}}]}', '[DONE]'] };
});

type Request = Omit<RawRequest, 'host' | 'port'>;

const local = (port: number, request: Request) => rawRequest({ host: '127.0.0.1', port, ...request });

const post = (body: string, headers: Record<string, string> = {}): Request => ({
  method: 'POST',
  target: COMPLETIONS,
  headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), ...headers },
  body,
});

/** The same requests sent from inside the namespace, to the server's address on the veth pair. */
const fromAnotherMachine = (port: number, requests: Request[]) => requestsFromNetns(netns, port, requests);

/** Nothing went upstream, no key spelling came back, and a plain request from this machine works. */
async function expectNothingLost(port: number, answers: RawResponse[]): Promise<void> {
  expect(upstream.requests).toEqual([]);
  expectNoKey(answers);
  const plain = await local(port, { target: MODELS });
  expect([plain.status, JSON.parse(plain.body)]).toEqual([200, SERVED]);
  expect(upstream.requests.map((r) => r.path)).toEqual(['/v1/models']);
}

function expectNoKey(answers: RawResponse[]): void {
  for (const answer of answers) for (const spelling of keySpellings(KEY)) expect(answer.body + JSON.stringify(answer.headers)).not.toContain(spelling);
}

const json = (r: RawResponse) => JSON.parse(r.body) as { error?: string };

const SPELLINGS = [
  MODELS,
  '/./api/engine/v1/models',
  '/x/../api/engine/v1/models',
  '/%2e/api/engine/v1/completions',
  '/api/engine/./v1/models',
  'http://127.0.0.1/api/engine/v1/models',
  'http://localhost/./api/engine/v1/completions',
];

for (const kind of ['dev', 'preview'] as const) {
  describe(`the engine proxy on the ${kind} server`, () => {
    const port = () => servers[kind].port;

    it('another machine: every spelling of an endpoint, GET and POST, is refused and reaches nothing', async () => {
      const [page, ...answers] = await fromAnotherMachine(port(), [
        { target: '/' },
        ...SPELLINGS.map((target) => ({ target })),
        post('{"prompt":[1],"max_tokens":1}'),
        { method: 'OPTIONS', target: COMPLETIONS, headers: { Origin: LISTED, 'Access-Control-Request-Method': 'POST' } },
      ]);
      expect(page!.status).toBe(200); // the server itself is reachable from there
      for (const answer of answers) {
        expect([answer.status, json(answer).error]).toEqual([403, 'the engine proxy only serves this machine']);
        expect(answer.headers['access-control-allow-origin']).toBeUndefined();
      }
      await expectNothingLost(port(), answers);
    });

    it('this machine: dot-segment and absolute-form targets are a 400, never routed', async () => {
      const answers = await Promise.all(SPELLINGS.slice(1).map((target) => local(port(), { target })));
      for (const answer of answers) {
        expect(answer.status).toBe(400);
        expect(json(answer).error).toMatch(/absolute-form|written plainly/);
      }
      await expectNothingLost(port(), answers);
    });

    it("another site's page (an unlisted localhost port, a foreign origin, a no-cors POST) is refused before anything goes upstream", async () => {
      const body = '{"prompt":[1],"max_tokens":1}';
      const answers = [
        await local(port(), { ...post(body, { Origin: 'http://localhost:5174', 'Sec-Fetch-Site': 'same-site' }) }),
        await local(port(), { method: 'OPTIONS', target: COMPLETIONS, headers: { Origin: 'http://localhost:5174', 'Access-Control-Request-Method': 'POST' } }),
        await local(port(), { target: MODELS, headers: { Origin: 'https://evil.example' } }),
        // A form on another site can POST text/plain without a preflight: refused by its Sec-Fetch-Site.
        await local(port(), { ...post(body, { 'Content-Type': 'text/plain', 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors' }) }),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(403);
        expect(answer.headers['access-control-allow-origin']).toBeUndefined();
        expect(json(answer).error).toMatch(/cross-origin request from .* refused: the engine proxy serves its own page/);
      }
      await expectNothingLost(port(), answers);
    });

    it('a listed origin gets a preflight for POST with a JSON body, and the answer; the page itself needs no CORS', async () => {
      const preflight = await local(port(), { method: 'OPTIONS', target: COMPLETIONS, headers: { Origin: LISTED, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' } });
      expect([preflight.status, preflight.headers['access-control-allow-origin'], preflight.headers['access-control-allow-methods'], preflight.headers['access-control-allow-headers']]).toEqual([204, LISTED, 'POST', 'content-type']);
      expect(upstream.requests).toEqual([]);
      const listed = await local(port(), post('{"prompt":[1],"max_tokens":1}', { Origin: LISTED, 'Sec-Fetch-Site': 'cross-site' }));
      expect([listed.status, listed.headers['access-control-allow-origin']]).toEqual([200, LISTED]);
      const own = await local(port(), { target: MODELS, headers: { Origin: `http://127.0.0.1:${port()}`, 'Sec-Fetch-Site': 'same-origin' } });
      expect([own.status, own.headers['access-control-allow-origin']]).toEqual([200, undefined]);
    });

    it('a DNS-rebound name in Host is refused', async () => {
      const answer = await local(port(), { target: MODELS, headers: { Host: `evil.example:${port()}` } });
      expect(answer.status).toBe(403);
      await expectNothingLost(port(), [answer]);
    });

    it('upstream gets the key and the body only: no cookie, not the client’s own Authorization', async () => {
      upstream.models = { reflect: true };
      const answer = await local(port(), { target: MODELS, headers: { Cookie: 'session=abc', Authorization: 'Bearer client-chosen', 'X-Forwarded-For': '10.0.0.9' } });
      expect(answer.status).toBe(200);
      const seen = upstream.requests[0]!;
      expect(seen.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(seen.headers.cookie).toBeUndefined();
      expect(seen.headers['x-forwarded-for']).toBeUndefined();
      // The reflected Authorization comes back redacted.
      expect(answer.body).toContain('Bearer [redacted]');
      expectNoKey([answer]);
      const body = '{"prompt":[128000,9906],"max_tokens":2,"stream":true}';
      await local(port(), post(body));
      expect([upstream.requests[1]!.method, upstream.requests[1]!.path, upstream.requests[1]!.body]).toEqual(['POST', '/v1/completions', JSON.parse(body)]);
    });

    it('a redirecting upstream gets nothing sent on: 502, the key never leaves for the other host', async () => {
      upstream.models = { status: 302, headers: { location: `${elsewhere.url}/v1/models` }, chunks: [] };
      upstream.completions = { status: 307, headers: { location: `${elsewhere.url}/v1/completions` }, chunks: [] };
      const answers = [await local(port(), { target: MODELS }), await local(port(), post('{"prompt":[1]}'))];
      expect(answers.map((a) => a.status)).toEqual([502, 502]);
      expect(json(answers[0]!).error).toMatch(/redirect .* not follow/);
      expect(elsewhere.requests).toEqual([]);
    });

    it('an upstream that echoes the key — in JSON, in a header, split across stream chunks, in every spelling — sends back only [redacted]', async () => {
      const spellings = keySpellings(KEY);
      upstream.models = { status: 200, headers: { 'content-type': `application/json; x=${encodeURIComponent(KEY)}` }, chunks: [spellings.join('\n')] };
      // Each event carries one spelling, cut in the middle of the key by the chunk boundary.
      const events = spellings.map((s) => `data: ${s}\n\n`);
      upstream.completions = { status: 200, headers: { 'content-type': 'text/event-stream' }, chunks: events.flatMap((e) => [e.slice(0, 12), e.slice(12)]) };
      const answers = [await local(port(), { target: MODELS }), await local(port(), post('{"prompt":[1],"stream":true}'))];
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expectNoKey(answers);
      expect(answers[1]!.body.match(/\[redacted\]/g)).toHaveLength(spellings.length);
      expect(answers[1]!.headers['content-type']).toBe('text/event-stream');
    });
  });
}
