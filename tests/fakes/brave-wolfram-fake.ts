/**
 * A loopback stand-in for the two services the search tools reach (tests only; the real ones are
 * unreachable here): Brave's web search API and Wolfram|Alpha's LLM API, at
 * their real paths, answering in their real shapes — including the fields the tools' shaper must drop
 * and the HTML Brave puts in snippets.
 *
 * Invariants: every request is recorded (headers included) before it is answered; a wrong or missing
 * key gets the service's own "unauthorized" answer, as the real service would; `close()` ends pending
 * slow answers and open connections, so a test never hangs on it.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeService = 'brave' | 'wolfram';

/**
 * - `ok`: a normal answer.
 * - `unauthorized`: Brave 401 (SUBSCRIPTION_TOKEN_INVALID), Wolfram 403 ("Invalid appid"), as the real
 *   services answer a bad key.
 * - `rate-limited`: 429 (Brave's RATE_LIMITED body, with Retry-After).
 * - `server-error`: 500 with an HTML error page.
 * - `slow`: answers `ok` after `slowMs` (or never, if the client gives up first).
 * - `not-understood`: Wolfram's 501 for input it cannot interpret.
 * - `empty`: Brave with no web results, Wolfram with an empty 200 body.
 * Hostile upstreams (what a compromised or misconfigured service could do to the proxy):
 * - `redirect`: 302 to this fake's `/collect`, which records whatever follows it (the key, if sent).
 * - `echo-key`: 200 whose body repeats the key it received in every spelling of keySpellings().
 * - `reflect-headers`: 200 whose body is the request line and headers it received.
 */
export type FakeMode = 'ok' | 'unauthorized' | 'rate-limited' | 'server-error' | 'slow' | 'not-understood' | 'empty' | 'redirect' | 'echo-key' | 'reflect-headers';

export interface FakeRequest {
  service: FakeService | 'unknown';
  method: string;
  /** Path and query, as received. */
  url: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Set when the client hung up before the answer was sent (e.g. an aborted slow request). */
  clientClosedEarly: boolean;
}

export interface FakeOptions {
  /** The key Brave accepts in `X-Subscription-Token`. Default `fake-brave-key`. */
  braveKey?: string;
  /** The appid Wolfram accepts. Default `fake-wolfram-appid`. */
  wolframAppId?: string;
}

export interface BraveWolframFake {
  /** `http://127.0.0.1:port` */
  url: string;
  /** What to give the proxy as `braveBase` / `wolframBase`. */
  braveBase: string;
  wolframBase: string;
  braveKey: string;
  wolframAppId: string;
  /** Every request received, oldest first. */
  requests: FakeRequest[];
  /** The requests that reached `/collect` (followed a `redirect`). */
  collected(): FakeRequest[];
  /** How long `slow` waits before answering. Default 30 s. */
  slowMs: number;
  /** Test-chosen answers: Brave results for a query (title, url, description, age), or undefined for the default ones. */
  braveAnswer?: (query: string) => Array<{ title: string; url: string; description: string; age?: string }> | undefined;
  /** Test-chosen Wolfram text for an input, or undefined for the default one. */
  wolframAnswer?: (input: string) => string | undefined;
  setMode(service: FakeService, mode: FakeMode): void;
  /** Tool-proxy options that send both services here with the keys this fake accepts. */
  proxyOptions(): FakeProxyOptions;
  /** Back to `ok` everywhere, requests forgotten. */
  reset(): void;
  close(): Promise<void>;
}

/** The subset of the tool proxy's options the fake fills in (plain data: no import of the proxy). */
export interface FakeProxyOptions {
  env: { BRAVE_API_KEY: string; WOLFRAM_APP_ID: string };
  braveBase: string;
  wolframBase: string;
}

export const BRAVE_SEARCH_PATH = '/res/v1/web/search';
export const WOLFRAM_LLM_PATH = '/api/v1/llm-api';
/** Where `redirect` sends the client. */
export const COLLECT_PATH = '/collect';

/**
 * The key as an echoing server could write it: raw, URI- and form-encoded, either hex case, every
 * byte encoded, encoded twice, and every character as a `\uXXXX` escape (in a JSON body the fake
 * writes that one as real JSON escapes).
 */
export function keySpellings(key: string): string[] {
  const uri = encodeURIComponent(key);
  const everyByte = [...new TextEncoder().encode(key)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  return [key, uri, new URLSearchParams({ k: key }).toString().slice(2), uri.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()), everyByte, everyByte.toUpperCase(), encodeURIComponent(uri), unicodeEscaped(key)];
}

const unicodeEscaped = (key: string) => [...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

export async function startBraveWolframFake(options: FakeOptions = {}): Promise<BraveWolframFake> {
  const braveKey = options.braveKey ?? 'fake-brave-key';
  const wolframAppId = options.wolframAppId ?? 'fake-wolfram-appid';
  const modes: Record<FakeService, FakeMode> = { brave: 'ok', wolfram: 'ok' };
  const requests: FakeRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const service = serviceOf(url.pathname);
    const record: FakeRequest = {
      service,
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { ...req.headers },
      clientClosedEarly: false,
    };
    requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.clientClosedEarly = true;
    });
    if (url.pathname === COLLECT_PATH) return reply(res, 200, 'text/plain', 'collected');
    if (service === 'unknown') return reply(res, 404, 'text/plain', 'not found');
    const mode = modes[service];
    if (hostile(res, service, mode, req.headers, url, { brave: braveKey, wolfram: wolframAppId }[service], base)) return;
    const answer = () => {
      if (service === 'brave') answerBrave(res, url.searchParams, req.headers, braveKey, mode, fake.braveAnswer);
      else answerWolfram(res, url.searchParams, wolframAppId, mode, fake.wolframAnswer);
    };
    if (mode !== 'slow') return answer();
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!res.destroyed) answer();
    }, fake.slowMs);
    timers.add(timer);
    res.on('close', () => {
      clearTimeout(timer);
      timers.delete(timer);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;

  const fake: BraveWolframFake = {
    url: base,
    braveBase: base,
    wolframBase: base,
    braveKey,
    wolframAppId,
    requests,
    collected: () => requests.filter((r) => r.path === COLLECT_PATH),
    slowMs: 30_000,
    proxyOptions: () => ({ env: { BRAVE_API_KEY: braveKey, WOLFRAM_APP_ID: wolframAppId }, braveBase: base, wolframBase: base }),
    setMode(service, mode) {
      modes[service] = mode;
    },
    reset() {
      modes.brave = modes.wolfram = 'ok';
      requests.length = 0;
      delete fake.braveAnswer;
      delete fake.wolframAnswer;
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
  return fake;
}

function serviceOf(path: string): FakeService | 'unknown' {
  if (path === BRAVE_SEARCH_PATH) return 'brave';
  if (path === WOLFRAM_LLM_PATH) return 'wolfram';
  return 'unknown';
}

function reply(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, ...headers });
  res.end(body);
}

/** Answers in a hostile mode (true), or leaves the request to the service (false). */
function hostile(res: ServerResponse, service: 'brave' | 'wolfram', mode: FakeMode, headers: IncomingHttpHeaders, url: URL, expectedKey: string, base: string): boolean {
  const received = service === 'brave' ? String(headers['x-subscription-token'] ?? '') : (url.searchParams.get('appid') ?? '');
  const json = service === 'brave';
  if (mode === 'redirect') {
    reply(res, 302, 'text/plain', 'moved', { location: `${base}${COLLECT_PATH}?from=${service}` });
  } else if (mode === 'echo-key') {
    const spellings = keySpellings(received || expectedKey);
    // In JSON the last spelling goes in as JSON's own escapes (below), not as escaped backslashes.
    const shown = json ? spellings.slice(0, -1) : spellings;
    const text = `you sent ${shown.join(' and ')} to ${url.pathname}${url.search}`;
    if (json) {
      const body = JSON.stringify({ ...braveBody(text, [braveResult(1, 'Echo', 'https://example.org/', text)]), echo: shown });
      reply(res, 200, 'application/json', `${body.slice(0, -1)},"escaped":"${spellings.at(-1)}"}`);
    } else {
      reply(res, 200, 'text/plain; charset=utf-8', `Result:\n${text}\n`);
    }
  } else if (mode === 'reflect-headers') {
    const request = { line: `GET ${url.pathname}${url.search}`, headers };
    if (json) reply(res, 200, 'application/json', JSON.stringify({ ...braveBody('', []), request }));
    else reply(res, 200, 'text/plain; charset=utf-8', `Result:\n${JSON.stringify(request, null, 1)}\n`);
  } else {
    return false;
  }
  return true;
}

const SERVER_ERROR_PAGE = '<html><head><title>500 Internal Server Error</title></head><body><h1>Internal Server Error</h1></body></html>';

// ---- Brave ------------------------------------------------------------------------------------------

function braveError(status: number, code: string, detail: string): string {
  return JSON.stringify({
    type: 'ErrorResponse',
    error: { id: 'c8f1a2de-0000-4000-8000-000000000000', status, code, detail, meta: { component: code === 'RATE_LIMITED' ? 'rate_limiter' : 'authentication' } },
    time: 1_754_900_000,
  });
}

function answerBrave(
  res: ServerResponse,
  params: URLSearchParams,
  headers: IncomingHttpHeaders,
  key: string,
  mode: FakeMode,
  chosen: BraveWolframFake['braveAnswer'],
): void {
  if (mode === 'unauthorized' || headers['x-subscription-token'] !== key) {
    return reply(res, 401, 'application/json', braveError(401, 'SUBSCRIPTION_TOKEN_INVALID', 'The provided subscription token is invalid.'));
  }
  if (mode === 'rate-limited') {
    return reply(res, 429, 'application/json', braveError(429, 'RATE_LIMITED', 'Request rate limit exceeded for plan.'), {
      'retry-after': '1',
      'x-ratelimit-limit': '1, 2000',
      'x-ratelimit-remaining': '0, 1500',
    });
  }
  if (mode === 'server-error') return reply(res, 500, 'text/html', SERVER_ERROR_PAGE);
  const q = params.get('q') ?? '';
  const count = Math.min(Number(params.get('count') ?? 20) || 20, 20);
  const picked = chosen?.(q)?.map((r, i) => braveResult(i + 1, r.title, r.url, r.description, r.age));
  const results = mode === 'empty' ? [] : (picked ?? BRAVE_RESULTS).slice(0, count);
  reply(res, 200, 'application/json', JSON.stringify(braveBody(q, results)));
}

/** The top level of Brave's WebSearchApiResponse, with the parts the tool ignores. */
function braveBody(q: string, results: readonly BraveResult[]): object {
  return {
    query: {
      original: q,
      show_strict_warning: false,
      is_navigational: false,
      is_news_breaking: false,
      spellcheck_off: true,
      country: 'us',
      bad_results: false,
      should_fallback: false,
      postal_code: '',
      city: '',
      header_country: '',
      more_results_available: true,
      state: '',
    },
    mixed: { type: 'mixed', main: results.map((_, index) => ({ type: 'web', index, all: false })), top: [], side: [] },
    type: 'search',
    web: { type: 'search', results, family_friendly: true },
  };
}

interface BraveResult {
  title: string;
  url: string;
  description: string;
  age?: string;
  [extra: string]: unknown;
}

function braveResult(n: number, title: string, url: string, description: string, age?: string): BraveResult {
  const host = new URL(url).hostname;
  return {
    title,
    url,
    is_source_local: false,
    is_source_both: false,
    description,
    ...(age === undefined ? {} : { page_age: '2024-03-03T00:00:00', age }),
    profile: { name: host, url, long_name: host, img: `https://imgs.search.brave.com/fake-${n}/favicon.png` },
    language: 'en',
    family_friendly: true,
    type: 'search_result',
    subtype: 'generic',
    is_live: false,
    meta_url: { scheme: 'https', netloc: host, hostname: host, favicon: `https://imgs.search.brave.com/fake-${n}/favicon.png`, path: `› ${n}` },
    thumbnail: { src: `https://imgs.search.brave.com/fake-${n}/thumb.jpg`, original: `${url}/image.jpg`, logo: false },
    extra_snippets: [`Extra snippet ${n} that the shaper must drop.`],
  };
}

/** Eight results: HTML tags and entities in snippets (as Brave sends them), one without `age`. */
export const BRAVE_RESULTS: readonly BraveResult[] = [
  braveResult(1, 'Reykjavík - Wikipedia', 'https://en.wikipedia.org/wiki/Reykjav%C3%ADk', '<strong>Reykjavík</strong> is the capital and largest city of Iceland. It had a <strong>population</strong> of about 139,000 in 2024 &amp; its metro area ~250,000.', 'March 3, 2024'),
  braveResult(2, 'Population of Reykjavik &#x27;24', 'https://www.statice.is/reykjavik', 'Statistics Iceland: the city&#x27;s residents numbered <b>139,875</b> on 1&nbsp;January 2024 &mdash; up 1.8%.', '2 months ago'),
  braveResult(3, 'Reykjavik facts', 'https://example.org/facts', 'Ten facts about &quot;the smoky bay&quot;: <em>Reykjavík</em> means bay of smoke.<br/>Founded 874.'),
  braveResult(4, 'Visit Reykjavik', 'https://visitreykjavik.is/', 'Things to do &lt;in&gt; the city.', '1 week ago'),
  braveResult(5, 'Iceland - World Factbook', 'https://www.cia.gov/the-world-factbook/countries/iceland/', 'Capital: <strong>Reykjavik</strong>; population 360,872 (2024 est.)', 'January 5, 2025'),
  braveResult(6, 'Sixth result', 'https://example.com/6', 'Result six.', '3 days ago'),
  braveResult(7, 'Seventh result', 'https://example.com/7', 'Result seven.', '4 days ago'),
  braveResult(8, 'Eighth result', 'https://example.com/8', 'Result eight.', '5 days ago'),
];

// ---- Wolfram ----------------------------------------------------------------------------------------

/** The LLM API's plain-text answer for an input. */
export function wolframText(input: string): string {
  return [
    'Query:',
    JSON.stringify(input),
    '',
    'Input interpretation:',
    'Reykjavík, Capital Region, Iceland | population',
    '',
    'Result:',
    '139875 people (2024 estimate)',
    '',
    `Wolfram|Alpha website result for ${JSON.stringify(input)}:`,
    `https://www.wolframalpha.com/input?i=${encodeURIComponent(input).replace(/%20/g, '+')}`,
    '',
  ].join('\n');
}

function answerWolfram(res: ServerResponse, params: URLSearchParams, appId: string, mode: FakeMode, chosen: BraveWolframFake['wolframAnswer']): void {
  const text = 'text/plain; charset=utf-8';
  if (mode === 'unauthorized' || params.get('appid') !== appId) return reply(res, 403, text, 'Error 1: Invalid appid');
  if (mode === 'rate-limited') return reply(res, 429, text, 'Rate limit exceeded', { 'retry-after': '1' });
  if (mode === 'server-error') return reply(res, 500, 'text/html', SERVER_ERROR_PAGE);
  const input = params.get('input');
  if (!input) return reply(res, 400, text, 'Input parameter not specified');
  if (mode === 'not-understood') {
    return reply(res, 501, text, `Wolfram|Alpha did not understand your input. Things to try instead: "${input} definition"`);
  }
  reply(res, 200, text, mode === 'empty' ? '' : (chosen?.(input) ?? wolframText(input)));
}

