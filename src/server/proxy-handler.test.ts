import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keySpellings, startBraveWolframFake, type BraveWolframFake, type FakeMode, type FakeService } from '../../tests/fakes/brave-wolfram-fake';
import { handleToolProxyRequest, type ToolProxyOptions, type ToolProxyRequest, type ToolProxyResponse } from './proxy-handler';

let fake: BraveWolframFake;
let options: ToolProxyOptions;

beforeAll(async () => {
  fake = await startBraveWolframFake();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  options = { ...fake.proxyOptions(), timeoutMs: 2_000 };
});

async function get(url: string, extra: Partial<ToolProxyOptions> = {}): Promise<ToolProxyResponse> {
  const answer = await handleToolProxyRequest({ url, method: 'GET' }, { ...options, ...extra });
  if (!answer) throw new Error(`not handled: ${url}`);
  return answer;
}

const json = (r: ToolProxyResponse) => JSON.parse(r.body) as Record<string, unknown>;

/** Nothing we send back may contain a key, in the body or any header. */
function expectNoKeys(r: ToolProxyResponse): void {
  const all = r.body + JSON.stringify(r.headers);
  expect(all).not.toContain(fake.braveKey);
  expect(all).not.toContain(fake.wolframAppId);
}

describe('brave_search', () => {
  it('sends the key upstream as X-Subscription-Token, passes q and count through, and returns the body as is', async () => {
    const r = await get('/api/tools/brave_search?q=Reykjavik%20population&count=3');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    const body = json(r) as { query: { original: string }; web: { results: unknown[] } };
    expect(body.query.original).toBe('Reykjavik population');
    expect(body.web.results).toHaveLength(3);
    const [upstream] = fake.requests;
    expect(upstream).toMatchObject({ service: 'brave', query: { q: 'Reykjavik population', count: '3' } });
    expect(upstream!.headers['x-subscription-token']).toBe(fake.braveKey);
    expect(upstream!.headers.accept).toBe('application/json');
    expect(upstream!.url).not.toContain(fake.braveKey); // header only, never in the URL
    expectNoKeys(r);
  });

  it('clamps count to 1..20 and omits it when absent', async () => {
    await get('/api/tools/brave_search?q=a&count=99');
    await get('/api/tools/brave_search?q=a&count=0');
    await get('/api/tools/brave_search?q=a');
    expect(fake.requests.map((r) => r.query.count)).toEqual(['20', '1', undefined]);
  });

  it('reads the upstream base from BRAVE_API_BASE when no option is given', async () => {
    const r = await get('/api/tools/brave_search?q=a', { braveBase: undefined, env: { BRAVE_API_KEY: fake.braveKey, BRAVE_API_BASE: `${fake.url}/` } });
    expect(r.status).toBe(200);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('wolfram_alpha', () => {
  it('sends the app id as appid upstream, passes input (and maxchars) through, and returns the text', async () => {
    const r = await get('/api/tools/wolfram_alpha?input=population%20of%20Reykjavik&maxchars=500');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    expect(r.body).toContain('139875 people');
    expect(fake.requests[0]).toMatchObject({
      service: 'wolfram',
      query: { input: 'population of Reykjavik', maxchars: '500', appid: fake.wolframAppId },
    });
    expectNoKeys(r);
  });

  it('reads the upstream base from WOLFRAM_API_BASE when no option is given', async () => {
    const r = await get('/api/tools/wolfram_alpha?input=2%2B2', { wolframBase: undefined, env: { WOLFRAM_APP_ID: fake.wolframAppId, WOLFRAM_API_BASE: fake.url } });
    expect(r.status).toBe(200);
  });
});

describe('errors', () => {
  type Case = { service: FakeService; mode: FakeMode; url: string; status: number; error: RegExp; upstream?: number; detail?: RegExp };
  const cases: Record<string, Case> = {
    'brave 401': { service: 'brave', mode: 'unauthorized', url: '/api/tools/brave_search?q=a', status: 401, error: /the API key was rejected by Brave Search \(check BRAVE_API_KEY\)/, upstream: 401, detail: /subscription token is invalid/ },
    'brave 429': { service: 'brave', mode: 'rate-limited', url: '/api/tools/brave_search?q=a', status: 429, error: /rate limited by Brave Search/, upstream: 429, detail: /rate limit exceeded/ },
    'brave 500 (HTML page not quoted)': { service: 'brave', mode: 'server-error', url: '/api/tools/brave_search?q=a', status: 500, error: /^upstream error: Brave Search failed \(HTTP 500\)$/, upstream: 500 },
    'wolfram 403 (bad appid)': { service: 'wolfram', mode: 'unauthorized', url: '/api/tools/wolfram_alpha?input=a', status: 403, error: /the API key was rejected by Wolfram\|Alpha \(check WOLFRAM_APP_ID\)/, upstream: 403, detail: /Invalid appid/ },
    'wolfram 501 (not understood)': { service: 'wolfram', mode: 'not-understood', url: '/api/tools/wolfram_alpha?input=blorp', status: 501, error: /could not interpret the input/, upstream: 501, detail: /did not understand/ },
    'wolfram 500': { service: 'wolfram', mode: 'server-error', url: '/api/tools/wolfram_alpha?input=a', status: 500, error: /^upstream error: Wolfram\|Alpha failed/, upstream: 500 },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, async () => {
      fake.setMode(c.service, c.mode);
      const r = await get(c.url);
      expect(r.status).toBe(c.status);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      const body = json(r);
      expect(body.error).toMatch(c.error);
      expect(body.upstream_status).toBe(c.upstream);
      if (c.detail) expect(body.detail).toMatch(c.detail);
      else expect(body.detail).toBeUndefined();
      expectNoKeys(r);
    });
  }

  it('passes Retry-After on 429', async () => {
    fake.setMode('brave', 'rate-limited');
    expect((await get('/api/tools/brave_search?q=a')).headers['retry-after']).toBe('1');
  });

  it('a wrong key is rejected upstream and never echoed', async () => {
    const r = await get('/api/tools/brave_search?q=a', { env: { BRAVE_API_KEY: 'wrong-key-123' } });
    expect(r.status).toBe(401);
    expect(r.body).not.toContain('wrong-key-123');
    expect(fake.requests[0]!.headers['x-subscription-token']).toBe('wrong-key-123');
  });

  it('redacts the key if upstream echoes it', async () => {
    const fetchEcho: typeof fetch = async (input) => new Response(`bad appid in ${String(input)}`, { status: 403 });
    const r = await get('/api/tools/wolfram_alpha?input=a', { fetch: fetchEcho });
    expect(r.status).toBe(403);
    expect(json(r).detail).toContain('[redacted]');
    expectNoKeys(r);
  });

  for (const [endpoint, variable] of [
    ['brave_search?q=a', 'BRAVE_API_KEY'],
    ['wolfram_alpha?input=a', 'WOLFRAM_APP_ID'],
  ] as const) {
    it(`no ${variable}: 503 with the setup hint, nothing sent upstream`, async () => {
      const r = await get(`/api/tools/${endpoint}`, { env: { [variable]: '  ' } });
      expect(r.status).toBe(503);
      expect(json(r)).toEqual({
        error: expect.stringContaining(`${variable} is not set`),
        setup: `set ${variable} in the environment of the dev/preview server`,
      });
      expect(fake.requests).toHaveLength(0);
    });
  }

  it('an upstream slower than the timeout is 504, and the upstream request is dropped', async () => {
    fake.setMode('brave', 'slow');
    const r = await get('/api/tools/brave_search?q=a', { timeoutMs: 150 });
    expect(r.status).toBe(504);
    expect(json(r).error).toBe('Brave Search did not answer within 150 ms');
    await expect.poll(() => fake.requests[0]?.clientClosedEarly).toBe(true);
  });

  it('an unreachable upstream is 502 without its URL (which carries the appid)', async () => {
    const r = await get('/api/tools/wolfram_alpha?input=a', { wolframBase: 'http://127.0.0.1:1' });
    expect(r.status).toBe(502);
    expect(json(r).error).toMatch(/^could not reach Wolfram\|Alpha: /);
    expectNoKeys(r);
  });

  it('the client going away aborts the upstream call', async () => {
    fake.setMode('wolfram', 'slow');
    const controller = new AbortController();
    const pending = handleToolProxyRequest({ url: '/api/tools/wolfram_alpha?input=a', signal: controller.signal }, options);
    await expect.poll(() => fake.requests.length).toBe(1);
    controller.abort();
    expect((await pending)?.status).toBe(499);
    await expect.poll(() => fake.requests[0]?.clientClosedEarly).toBe(true);
  });
});

describe('requests the proxy refuses or passes on', () => {
  const cases: Record<string, { url: string; method?: string; status: number | undefined; error?: RegExp }> = {
    'outside the prefix': { url: '/index.html', status: undefined },
    'prefix without slash': { url: '/api/toolsbrave_search', status: undefined },
    'unknown endpoint': { url: '/api/tools/photogen?q=a', status: 404, error: /no tool endpoint "photogen"/ },
    'missing q': { url: '/api/tools/brave_search', status: 400, error: /missing query/ },
    'blank q': { url: '/api/tools/brave_search?q=%20%20', status: 400, error: /missing query/ },
    'q over 400 chars': { url: `/api/tools/brave_search?q=${'a'.repeat(401)}`, status: 400, error: /query too long: 401 characters/ },
    'bad count': { url: '/api/tools/brave_search?q=a&count=lots', status: 400, error: /count must be a whole number/ },
    'missing input': { url: '/api/tools/wolfram_alpha?q=a', status: 400, error: /missing input/ },
    'bad maxchars': { url: '/api/tools/wolfram_alpha?input=a&maxchars=-1', status: 400, error: /maxchars must be a positive/ },
    POST: { url: '/api/tools/brave_search?q=a', method: 'POST', status: 405, error: /POST is not allowed/ },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, async () => {
      const r = await handleToolProxyRequest({ url: c.url, method: c.method ?? 'GET' }, options);
      expect(r?.status).toBe(c.status);
      if (c.error) expect(json(r!).error).toMatch(c.error);
      expect(fake.requests).toHaveLength(0);
    });
  }

  it('a custom prefix', async () => {
    const r = await handleToolProxyRequest({ url: '/tools/brave_search?q=a' }, { ...options, prefix: '/tools/' });
    expect(r?.status).toBe(200);
  });
});

describe('services: where each tool would send a query', () => {
  it('says per service whether a key is set and the upstream host, never a key, and calls no upstream', async () => {
    const r = await get('/api/tools/services');
    expect(r.status).toBe(200);
    const bare = (base: string | undefined) => new URL(base!).host;
    expect(json(r)).toEqual({
      brave_search: { configured: true, host: bare(options.braveBase) },
      wolfram_alpha: { configured: true, host: bare(options.wolframBase) },
    });
    expectNoKeys(r);
    expect(fake.requests).toHaveLength(0);
  });

  it('a service without a key reads as not configured; the default hosts are the public ones', async () => {
    const r = await get('/api/tools/services', { env: { WOLFRAM_APP_ID: 'test-app-id-123' }, braveBase: undefined, wolframBase: undefined });
    expect(json(r)).toEqual({
      brave_search: { configured: false, host: 'api.search.brave.com' },
      wolfram_alpha: { configured: true, host: 'www.wolframalpha.com' },
    });
  });

  it('keeps the proxy rules: GET only, and a cross-site browser is refused', async () => {
    expect((await handleToolProxyRequest({ url: '/api/tools/services', method: 'POST' }, options))?.status).toBe(405);
    const crossSite = await handleToolProxyRequest({ url: '/api/tools/services', method: 'GET', secFetchSite: 'cross-site', origin: 'https://evil.example' }, options);
    expect(crossSite?.status).toBe(403);
  });
});

describe('CORS', () => {
  const cases: Record<string, { allowed?: string[]; origin?: string; header: string | undefined }> = {
    'none by default': { origin: 'https://host.example', header: undefined },
    'listed origin': { allowed: ['https://host.example'], origin: 'https://host.example', header: 'https://host.example' },
    'unlisted origin': { allowed: ['https://host.example'], origin: 'https://evil.example', header: undefined },
    wildcard: { allowed: ['*'], origin: 'https://any.example', header: '*' },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, async () => {
      const r = await handleToolProxyRequest(
        { url: '/api/tools/brave_search', ...(c.origin ? { origin: c.origin } : {}) },
        { ...options, ...(c.allowed ? { corsOrigins: c.allowed } : {}) },
      );
      expect(r?.headers['access-control-allow-origin']).toBe(c.header);
    });
  }
  it('the allowed origins can come from TOOL_PROXY_CORS_ORIGINS', async () => {
    const env = { ...options.env, TOOL_PROXY_CORS_ORIGINS: 'https://a.example, https://host.example' };
    const r = await handleToolProxyRequest({ url: '/api/tools/brave_search', origin: 'https://host.example' }, { ...options, env });
    expect(r?.headers['access-control-allow-origin']).toBe('https://host.example');
  });
});

describe('hostile upstreams and hostile callers', () => {
  /** A key with every character that URL, form and JSON encodings spell differently. */
  const KEYS = { BRAVE_API_KEY: "brave key+'()!~*/?&=\"x", WOLFRAM_APP_ID: "wolfram id'()!~ &=" };
  let hostile: BraveWolframFake;
  beforeAll(async () => {
    hostile = await startBraveWolframFake({ braveKey: KEYS.BRAVE_API_KEY, wolframAppId: KEYS.WOLFRAM_APP_ID });
  });
  afterAll(() => hostile.close());
  beforeEach(() => hostile.reset());
  const call = (url: string, extra: Partial<ToolProxyRequest> = {}, more: Partial<ToolProxyOptions> = {}) =>
    handleToolProxyRequest({ url, method: 'GET', ...extra }, { ...hostile.proxyOptions(), env: { ...KEYS }, timeoutMs: 2_000, ...more }).then((r) => r!);
  /** No spelling of either key, in the body or any header. */
  const expectNoKeySpelling = (r: ToolProxyResponse) => {
    const all = r.body + JSON.stringify(r.headers);
    for (const key of Object.values(KEYS)) for (const spelling of keySpellings(key)) expect(all).not.toContain(spelling);
  };
  const ENDPOINTS = { brave: '/api/tools/brave_search?q=a', wolfram: '/api/tools/wolfram_alpha?input=a' } as const;

  for (const service of ['brave', 'wolfram'] as const) {
    it(`${service}: an upstream redirect is not followed (the key stays home), and the next call works`, async () => {
      hostile.setMode(service, 'redirect');
      const r = await call(ENDPOINTS[service]);
      expect(r.status).toBe(502);
      expect(json(r)).toMatchObject({ error: expect.stringMatching(/answered with a redirect \(HTTP 302\), which the proxy does not follow/), upstream_status: 302 });
      expect(hostile.collected()).toEqual([]);
      expectNoKeySpelling(r);
      hostile.setMode(service, 'ok');
      expect((await call(ENDPOINTS[service])).status).toBe(200);
    });

    it(`${service}: a 2xx body echoing the key in every spelling comes back redacted`, async () => {
      hostile.setMode(service, 'echo-key');
      const r = await call(ENDPOINTS[service]);
      expect(r.status).toBe(200);
      expect(r.body).toContain('[redacted]');
      expectNoKeySpelling(r);
      if (service === 'brave') expect((JSON.parse(r.body) as { echo: string[] }).echo.every((e) => e === '[redacted]')).toBe(true);
    });

    it(`${service}: a body reflecting the request headers and URL comes back redacted`, async () => {
      hostile.setMode(service, 'reflect-headers');
      const r = await call(ENDPOINTS[service]);
      expect(r.status).toBe(200);
      expect(r.body).toContain('[redacted]');
      expectNoKeySpelling(r);
    });
  }

  it('an upstream error quoting the form-encoded key is redacted', async () => {
    const form = new URLSearchParams({ appid: KEYS.WOLFRAM_APP_ID }).toString();
    const fetchEcho: typeof fetch = async () => new Response(`bad request: ${form}`, { status: 400 });
    const r = await call(ENDPOINTS.wolfram, {}, { fetch: fetchEcho });
    expect(json(r).detail).toBe('bad request: appid=[redacted]');
    expectNoKeySpelling(r);
  });

  const refusedTargets = ['/./api/tools/brave_search?q=x', '/x/../api/tools/brave_search?q=x', '/%2e/api/tools/brave_search?q=x', 'http://127.0.0.1/api/tools/brave_search?q=x'];
  for (const url of refusedTargets) {
    it(`${url}: 400, nothing sent upstream`, async () => {
      const r = await call(url);
      expect(r.status).toBe(400);
      expect(json(r).error).toMatch(/absolute-form|written plainly/);
      expect(hostile.requests).toEqual([]);
    });
  }

  const host = '127.0.0.1:5173';
  const crossSite: Record<string, Partial<ToolProxyRequest>> = {
    'another localhost port': { host, origin: 'http://localhost:5174', secFetchSite: 'same-site' },
    'another site': { host, origin: 'https://evil.example', secFetchSite: 'cross-site' },
    'an <img> on another site': { host, secFetchSite: 'cross-site' },
  };
  for (const [name, extra] of Object.entries(crossSite)) {
    it(`${name}: refused before upstream, no CORS header, preflight refused too`, async () => {
      const r = await call(ENDPOINTS.brave, extra);
      expect(r.status).toBe(403);
      expect(json(r).error).toMatch(/cross-origin request from .* refused/);
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
      const preflight = await call(ENDPOINTS.brave, { ...extra, method: 'OPTIONS' });
      expect(preflight.status).toBe(403);
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      expect(hostile.requests).toEqual([]);
    });
  }

  it('a listed origin gets its preflight and its answer; the page itself needs none', async () => {
    const listed = { corsOrigins: ['https://host.example'] };
    const from = { host, origin: 'https://host.example', secFetchSite: 'cross-site' };
    const preflight = await call(ENDPOINTS.brave, { ...from, method: 'OPTIONS' }, listed);
    expect(preflight.status).toBe(204);
    expect(preflight.headers).toMatchObject({ 'access-control-allow-origin': 'https://host.example', 'access-control-allow-methods': 'GET' });
    const r = await call(ENDPOINTS.brave, from, listed);
    expect([r.status, r.headers['access-control-allow-origin']]).toEqual([200, 'https://host.example']);
    const own = await call(ENDPOINTS.brave, { host, origin: `http://${host}`, secFetchSite: 'same-origin' });
    expect([own.status, own.headers['access-control-allow-origin']]).toEqual([200, undefined]);
  });
});
