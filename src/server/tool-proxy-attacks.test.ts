/**
 * The tool proxy under attack, over real HTTP, on the real vite dev and preview servers (listening
 * on every address, as `vite --host` does) in front of a loopback fake upstream that redirects,
 * echoes keys and reflects headers. "Another machine" is real: requests come from a network
 * namespace joined by a veth pair (tests/support/netns.ts), so the server sees a non-loopback client
 * address. Every case ends by checking that nothing reached the upstream and that a plain request
 * still works: a refusal loses nothing.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keySpellings, startBraveWolframFake, type BraveWolframFake } from '../../tests/fakes/brave-wolfram-fake';
import { createNetns, type Netns } from '../../tests/support/netns';
import { requestsFromNetns } from '../../tests/support/netns-requests';
import { rawRequest, type RawRequest, type RawResponse } from '../../tests/support/raw-http';
import { startDevAndPreview, type RunningServers } from '../../tests/support/vite-servers';
import { modelsInPreviewPlugin } from './static-assets';
import { toolProxy } from './tool-proxy';

const KEYS = { BRAVE_API_KEY: "brave key+'()!~*/?&=x", WOLFRAM_APP_ID: "wolfram id'()!~ &=" };
const LISTED = 'https://host.example';
const SEARCH = '/api/tools/brave_search?q=Reykjavik';

let fake: BraveWolframFake;
let netns: Netns;
let root: string;
let servers: RunningServers;

beforeAll(async () => {
  fake = await startBraveWolframFake({ braveKey: KEYS.BRAVE_API_KEY, wolframAppId: KEYS.WOLFRAM_APP_ID });
  netns = await createNetns();
  root = await mkdtemp(join(tmpdir(), 'tool-proxy-attacks-'));
  await writeFile(join(root, 'index.html'), '<!doctype html><title>page</title>');
  await mkdir(join(root, 'dist'));
  await writeFile(join(root, 'dist', 'index.html'), '<!doctype html><title>built</title>');
  await mkdir(join(root, 'models'));
  await writeFile(join(root, 'models', 'list.json'), '{"models": []}');
  const plugins = () => [toolProxy({ ...fake.proxyOptions(), env: { ...KEYS }, corsOrigins: [LISTED], timeoutMs: 5_000 }), modelsInPreviewPlugin(root)];
  servers = await startDevAndPreview(root, plugins);
}, 120_000);
afterAll(async () => {
  await servers.dev?.close();
  await servers.preview?.close();
  await netns?.remove();
  await fake?.close();
  if (root) await rm(root, { recursive: true, force: true });
});
beforeEach(() => fake.reset());

type Request = Omit<RawRequest, 'host' | 'port'>;

/** Requests from this machine (127.0.0.1). */
const local = (port: number, request: Request) => rawRequest({ host: '127.0.0.1', port, ...request });

/** The same requests sent from inside the namespace, to the server's address on the veth pair. */
const fromAnotherMachine = (port: number, requests: Request[]) => requestsFromNetns(netns, port, requests);

/** Nothing went upstream, no key spelling came back, and a plain search from this machine works. */
async function expectNothingLost(port: number, answers: RawResponse[]): Promise<void> {
  expect(fake.requests).toEqual([]);
  for (const answer of answers) {
    for (const key of Object.values(KEYS)) for (const spelling of keySpellings(key)) expect(answer.body + JSON.stringify(answer.headers)).not.toContain(spelling);
  }
  const plain = await local(port, { target: SEARCH });
  expect(plain.status).toBe(200);
  expect(fake.requests.map((r) => r.service)).toEqual(['brave']);
}

const json = (r: RawResponse) => JSON.parse(r.body) as { error?: string };

/** Every spelling of an endpoint the review found reaching the handler from another machine. */
const SPELLINGS = [
  SEARCH,
  '/./api/tools/brave_search?q=x',
  '/x/../api/tools/brave_search?q=x',
  '/%2e/api/tools/brave_search?q=x',
  '/api/tools/./wolfram_alpha?input=x',
  'http://127.0.0.1/api/tools/brave_search?q=x',
  'http://localhost/./api/tools/wolfram_alpha?input=x',
];

for (const kind of ['dev', 'preview'] as const) {
  describe(`the ${kind} server`, () => {
    const port = () => servers[kind].port;

    it('another machine: every spelling of an endpoint (plain, dot segments, %2e, absolute form) is refused and spends nothing', async () => {
      const [page, ...answers] = await fromAnotherMachine(port(), [{ target: '/' }, ...SPELLINGS.map((target) => ({ target }))]);
      expect(page!.status).toBe(200); // the server itself is reachable from there
      for (const [i, answer] of answers.entries()) {
        expect([SPELLINGS[i], answer.status, json(answer).error]).toEqual([SPELLINGS[i], 403, 'the tool proxy only serves this machine']);
      }
      const [preflight] = await fromAnotherMachine(port(), [{ method: 'OPTIONS', target: SEARCH, headers: { Origin: LISTED, 'Access-Control-Request-Method': 'GET' } }]);
      expect(preflight!.status).toBe(403);
      expect(preflight!.headers['access-control-allow-origin']).toBeUndefined();
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

    it("vite's CORS does not answer for the proxy: an unlisted localhost origin gets no CORS header, its preflight fails, nothing goes upstream", async () => {
      const origin = 'http://localhost:5174'; // vite's default server.cors reflects this one
      const answers = [
        await local(port(), { target: SEARCH, headers: { Origin: origin, 'Sec-Fetch-Site': 'same-site' } }),
        await local(port(), { method: 'OPTIONS', target: SEARCH, headers: { Origin: origin, 'Access-Control-Request-Method': 'GET' } }),
        await local(port(), { target: SEARCH, headers: { Origin: 'https://evil.example' } }),
        await local(port(), { target: SEARCH, headers: { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors' } }), // an <img>
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(403);
        expect(answer.headers['access-control-allow-origin']).toBeUndefined();
        expect(json(answer).error).toMatch(/cross-origin request from .* refused/);
      }
      await expectNothingLost(port(), answers);
      // vite's own CORS still serves the rest of the site as configured.
      expect((await local(port(), { target: '/', headers: { Origin: origin } })).headers['access-control-allow-origin']).toBe(origin);
    });

    it('a listed origin gets the preflight and the answer; the page itself needs no CORS', async () => {
      const preflight = await local(port(), { method: 'OPTIONS', target: SEARCH, headers: { Origin: LISTED, 'Access-Control-Request-Method': 'GET' } });
      expect([preflight.status, preflight.headers['access-control-allow-origin'], preflight.headers['access-control-allow-methods']]).toEqual([204, LISTED, 'GET']);
      const listed = await local(port(), { target: SEARCH, headers: { Origin: LISTED, 'Sec-Fetch-Site': 'cross-site' } });
      expect([listed.status, listed.headers['access-control-allow-origin']]).toEqual([200, LISTED]);
      const own = await local(port(), { target: SEARCH, headers: { Origin: `http://127.0.0.1:${port()}`, 'Sec-Fetch-Site': 'same-origin' } });
      expect([own.status, own.headers['access-control-allow-origin']]).toEqual([200, undefined]);
    });

    it('a DNS-rebound name in Host is refused', async () => {
      const answer = await local(port(), { target: SEARCH, headers: { Host: `evil.example:${port()}` } });
      expect(answer.status).toBe(403);
      await expectNothingLost(port(), [answer]);
    });

    it('a redirecting upstream gets nothing; echoed and reflected keys come back redacted', async () => {
      fake.setMode('brave', 'redirect');
      fake.setMode('wolfram', 'redirect');
      const redirected = [await local(port(), { target: SEARCH }), await local(port(), { target: '/api/tools/wolfram_alpha?input=x' })];
      expect(redirected.map((r) => r.status)).toEqual([502, 502]);
      expect(fake.collected()).toEqual([]);
      const echoed: RawResponse[] = [];
      for (const mode of ['echo-key', 'reflect-headers'] as const) {
        fake.setMode('brave', mode);
        fake.setMode('wolfram', mode);
        echoed.push(await local(port(), { target: SEARCH }), await local(port(), { target: '/api/tools/wolfram_alpha?input=x' }));
      }
      expect(echoed.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      for (const answer of [...redirected, ...echoed]) {
        expect(answer.body).toMatch(/\[redacted\]|redirect/);
        for (const key of Object.values(KEYS)) for (const spelling of keySpellings(key)) expect(answer.body).not.toContain(spelling);
      }
      fake.reset();
      expect((await local(port(), { target: SEARCH })).status).toBe(200);
    });
  });
}

describe('the preview server', () => {
  it('bad percent-encoding under /models/ is a 400 in words, not a stack trace', async () => {
    const port = servers.preview.port;
    for (const target of ['/models/%', '/models/%E0%A4%A', '/models/a%zz.json']) {
      const answer = await local(port, { target });
      expect([target, answer.status]).toEqual([target, 400]);
      expect(answer.body).toMatch(/^bad percent-encoding in the path/);
      expect(answer.body).not.toContain(root);
      expect(answer.body).not.toMatch(/\bat \S+ \(|node_modules|URIError/);
    }
    const good = await local(port, { target: '/models/list.json' });
    expect([good.status, good.body]).toEqual([200, '{"models": []}']);
  });
});
