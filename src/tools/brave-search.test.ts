import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pythonJson } from '../format/python-json';
import { BRAVE_RESULTS, type BraveWolframFake } from '../../tests/fakes/brave-wolfram-fake';
import { startProxiedFake, type ProxiedFake } from '../../tests/fakes/proxied-fake';
import { startToolProxyServer, type ToolProxyServer } from '../server/tool-proxy';
import { braveSearchTool, shapeBraveResults, type BraveSearchOptions } from './brave-search';
import { ToolError } from './tool';

/** Fake upstreams, and two proxies over them: one with keys, one without. */
let upstreams: ProxiedFake;
let fake: BraveWolframFake;
let proxy: ToolProxyServer;
let keyless: ToolProxyServer;

beforeAll(async () => {
  upstreams = await startProxiedFake();
  ({ fake, proxy, keyless } = upstreams);
});
afterAll(() => upstreams.close());
beforeEach(() => fake.reset());

const signal = () => new AbortController().signal;
const search = (query: unknown, options: BraveSearchOptions = {}, s = signal()) =>
  braveSearchTool({ proxyBase: proxy.toolsBase, ...options }).execute({ query }, { signal: s });

async function toolError(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe('shapeBraveResults', () => {
  const body = (results: unknown) => ({ query: { original: 'q' }, web: { type: 'search', results } });
  const cases: Record<string, { body: unknown; max: number; expected: unknown[] }> = {
    'top N, only title/url/description/age, HTML stripped': {
      body: body(BRAVE_RESULTS),
      max: 3,
      expected: [
        {
          title: 'Reykjavík - Wikipedia',
          url: 'https://en.wikipedia.org/wiki/Reykjav%C3%ADk',
          description: 'Reykjavík is the capital and largest city of Iceland. It had a population of about 139,000 in 2024 & its metro area ~250,000.',
          age: 'March 3, 2024',
        },
        {
          title: "Population of Reykjavik '24",
          url: 'https://www.statice.is/reykjavik',
          description: "Statistics Iceland: the city's residents numbered 139,875 on 1 January 2024 — up 1.8%.",
          age: '2 months ago',
        },
        {
          title: 'Reykjavik facts',
          url: 'https://example.org/facts',
          description: 'Ten facts about "the smoky bay": Reykjavík means bay of smoke. Founded 874.',
        },
      ],
    },
    'fewer results than N': { body: body(BRAVE_RESULTS.slice(5, 7)), max: 5, expected: [
      { title: 'Sixth result', url: 'https://example.com/6', description: 'Result six.', age: '3 days ago' },
      { title: 'Seventh result', url: 'https://example.com/7', description: 'Result seven.', age: '4 days ago' },
    ] },
    'results without a string url are skipped; missing fields become empty': {
      body: body([{ title: 'no url' }, { url: 'https://a.example/', age: '  ' }, null]),
      max: 5,
      expected: [{ title: '', url: 'https://a.example/', description: '' }],
    },
    'no web section': { body: { query: {}, news: { results: [] } }, max: 5, expected: [] },
    'not an object': { body: null, max: 5, expected: [] },
    'results not a list': { body: body('nope'), max: 5, expected: [] },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => expect(shapeBraveResults('q', c.body, c.max)).toEqual({ query: 'q', results: c.expected }));
  }

  it('what reaches the model has exactly the four keys per result, in order', () => {
    const text = pythonJson(shapeBraveResults('Reykjavik population', body(BRAVE_RESULTS), 1));
    expect(text).toBe(
      '{"query": "Reykjavik population", "results": [{"title": "Reykjavík - Wikipedia", "url": "https://en.wikipedia.org/wiki/Reykjav%C3%ADk", ' +
        '"description": "Reykjavík is the capital and largest city of Iceland. It had a population of about 139,000 in 2024 & its metro area ~250,000.", "age": "March 3, 2024"}]}',
    );
    for (const dropped of ['profile', 'thumbnail', 'extra_snippets', 'meta_url', 'page_age', 'family_friendly', '<strong>']) {
      expect(text).not.toContain(dropped);
    }
  });
});

describe('brave_search through the proxy', () => {
  it('returns the top 5 shaped results, asking the proxy for 5', async () => {
    const result = (await search('Reykjavik population')) as { query: string; results: unknown[] };
    expect(result.query).toBe('Reykjavik population');
    expect(result.results).toHaveLength(5);
    expect(result).toEqual(shapeBraveResults('Reykjavik population', { web: { results: BRAVE_RESULTS } }, 5));
    expect(fake.requests[0]).toMatchObject({ service: 'brave', query: { q: 'Reykjavik population', count: '5' } });
  });

  it('maxResults sets N', async () => {
    const result = (await search('a', { maxResults: 2 })) as { results: unknown[] };
    expect(result.results).toHaveLength(2);
    expect(fake.requests[0]!.query.count).toBe('2');
  });

  it('has the built-in shape: name, {query} parameters, confirmation by default (the query leaves the machine)', () => {
    const tool = braveSearchTool();
    expect(tool).toMatchObject({
      name: 'brave_search',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
      needsConfirmation: true,
    });
    expect(braveSearchTool({ needsConfirmation: false }).needsConfirmation).toBe(false);
  });

  const failures: Record<string, { mode?: Parameters<BraveWolframFake['setMode']>[1]; base?: () => string; message: RegExp; details?: Record<string, unknown> }> = {
    'no key: the setup hint': {
      base: () => keyless.toolsBase,
      message: /^Brave Search is not configured: BRAVE_API_KEY is not set$/,
      details: { setup: 'set BRAVE_API_KEY in the environment of the dev/preview server' },
    },
    '401: key rejected': { mode: 'unauthorized', message: /the API key was rejected/, details: { status: 401 } },
    '429: rate limited': { mode: 'rate-limited', message: /rate limited/, details: { status: 429 } },
    '500: upstream error': { mode: 'server-error', message: /^upstream error/, details: { status: 500 } },
    '504: upstream timeout': { mode: 'slow', message: /did not answer within 300 ms/, details: { status: 504 } },
    'no proxy at that address (404 page)': { base: () => `${fake.url}/not-a-proxy/`, message: /the tool proxy is not available \(HTTP 404/, details: { status: 404 } },
    'nothing listening': { base: () => 'http://127.0.0.1:1/api/tools/', message: /could not reach the tool proxy at http:\/\/127\.0\.0\.1:1\/api\/tools\/brave_search/ },
  };
  for (const [name, c] of Object.entries(failures)) {
    it(name, async () => {
      if (c.mode) fake.setMode('brave', c.mode);
      const error = await toolError(search('a', c.base ? { proxyBase: c.base() } : {}));
      expect(error.message).toMatch(c.message);
      if (c.details) expect(error.details).toMatchObject(c.details);
    });
  }

  for (const [name, query] of Object.entries({ missing: undefined, blank: '  ', number: 42 })) {
    it(`a ${name} query is an error the model can fix, and nothing is fetched`, async () => {
      expect((await toolError(search(query))).message).toBe('brave_search needs a non-empty "query" string');
      expect(fake.requests).toHaveLength(0);
    });
  }

  it('an abort mid-request rejects with the signal reason and hangs up all the way upstream', async () => {
    fake.setMode('brave', 'slow');
    const slowProxy = await startToolProxyServer(fake.proxyOptions());
    try {
      const controller = new AbortController();
      const pending = search('a', { proxyBase: slowProxy.toolsBase }, controller.signal);
      await expect.poll(() => fake.requests.length).toBe(1);
      controller.abort();
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
      await expect.poll(() => fake.requests[0]?.clientClosedEarly).toBe(true);
    } finally {
      await slowProxy.close();
    }
  });

  it("a timeout signal rejects with the signal's TimeoutError, not a ToolError", async () => {
    fake.setMode('brave', 'slow');
    const slowProxy = await startToolProxyServer(fake.proxyOptions());
    try {
      await expect(search('a', { proxyBase: slowProxy.toolsBase }, AbortSignal.timeout(100))).rejects.toMatchObject({ name: 'TimeoutError' });
    } finally {
      await slowProxy.close();
    }
  });
});
