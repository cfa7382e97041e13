/**
 * The core of the same-origin tool proxy (Node only): one request URL in, one `{status, headers, body}`
 * out, no server framework. The browser's `brave_search` / `wolfram_alpha` tools call it; the API keys
 * live only here, in the server's environment.
 *
 * Invariants:
 * - A key is read from `env` (default `process.env`) at request time and goes upstream only: Brave's as
 *   the `X-Subscription-Token` header, Wolfram's as the `appid` query parameter (the LLM API's only
 *   way), and only to the configured host: a redirect is never followed (it is a 502). No response
 *   body or header written here contains a key in any spelling (key-redaction.ts): every answer,
 *   success or error, passes through the redaction of every configured key, and nothing is logged.
 * - Every answer of ours is JSON `{"error": ...}` with a non-2xx status, except a success, which is the
 *   upstream body (Brave: JSON, Wolfram: text), redacted. Upstream errors keep the upstream status and
 *   say what happened in words; a missing key is 503 with a `setup` hint; an upstream timeout is 504.
 * - Which requests are ours is decided once, by readRequestTarget (request-target.ts): a target that
 *   is not ours gets `undefined` so the caller can pass it on; a mis-spelled one of ours is a 400.
 * - A browser request from another site that is not on the CORS allow-list is refused (403) before
 *   anything goes upstream (cross-origin.ts); the CORS headers are ours alone.
 */
import { allowedOrigins, corsHeaders, crossSiteRefusal, PREFLIGHT_HEADERS, type BrowserContext } from './cross-origin';
import { QUERY_TOOL_NAMES } from '../format/builtin-tools';
import { FAILURE_TEXTS, SERVICE_NAMES } from '../tools/failure-texts';
import { SERVICES_ENDPOINT, type ProxyServices } from '../tools/proxy-services';
import { redactKeys } from './key-redaction';
import type { LocalGateOptions } from './local-gate';
import { readRequestTarget, type RequestTarget } from './request-target';

/** The endpoints, by the name of the tool that calls them: the built-ins that query the web. */
export const TOOL_ENDPOINTS = QUERY_TOOL_NAMES;
export type ToolEndpoint = (typeof TOOL_ENDPOINTS)[number];

export const DEFAULT_PREFIX = '/api/tools/';
export const DEFAULT_BRAVE_BASE = 'https://api.search.brave.com';
export const DEFAULT_WOLFRAM_BASE = 'https://www.wolframalpha.com';
/** Appended to the Brave base (`BRAVE_API_BASE` / `braveBase`). */
export const BRAVE_PATH = '/res/v1/web/search';
/** Appended to the Wolfram base (`WOLFRAM_API_BASE` / `wolframBase`). */
export const WOLFRAM_PATH = '/api/v1/llm-api';
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000;
/** Brave's limits: `q` at most 400 characters, `count` 1..20. */
export const BRAVE_MAX_QUERY_CHARS = 400;
export const BRAVE_MAX_COUNT = 20;

export interface ToolProxyOptions extends LocalGateOptions {
  /** Where the keys and base overrides are read, at request time. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Brave origin (+ optional path prefix); beats `BRAVE_API_BASE`; default api.search.brave.com. */
  braveBase?: string;
  /** Wolfram origin (+ optional path prefix); beats `WOLFRAM_API_BASE`; default www.wolframalpha.com. */
  wolframBase?: string;
  /** Upstream deadline per request, ms. Default 10 s. */
  timeoutMs?: number;
  /** Path prefix of the endpoints, with both slashes. Default `/api/tools/`. */
  prefix?: string;
  /**
   * Origins allowed to read answers cross-origin (a widget on another page calling an absolute proxy
   * URL); `'*'` allows any. Default: env TOOL_PROXY_CORS_ORIGINS (comma-separated), else none.
   */
  corsOrigins?: readonly string[];
  /** The fetch used upstream (tests). Default the global one. */
  fetch?: typeof fetch;
}

export interface ToolProxyRequest extends BrowserContext {
  /** The request target as the server saw it, as sent: normally path and query (`/api/tools/brave_search?q=x`). */
  url: string;
  method?: string;
  /** Aborts the upstream call when the client goes away. */
  signal?: AbortSignal;
}

export interface ToolProxyResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The JSON body of every error answer. `upstream_status` is present when upstream answered. */
export interface ToolProxyErrorBody {
  error: string;
  setup?: string;
  upstream_status?: number;
  detail?: string;
}

interface Service {
  /** Which service, for the failure texts the model reads (src/tools/failure-texts.ts). */
  name: ToolEndpoint;
  /** Words for messages: "Brave Search". */
  label: string;
  keyVar: string;
  baseVar: string;
  defaultBase: string;
  path: string;
  contentType: string;
  /** Service-specific words for statuses, before the generic ones. */
  statusWords?: Record<number, string>;
}

const SERVICES: Record<ToolEndpoint, Service> = {
  brave_search: {
    name: 'brave_search',
    ...SERVICE_NAMES.brave_search,
    baseVar: 'BRAVE_API_BASE',
    defaultBase: DEFAULT_BRAVE_BASE,
    path: BRAVE_PATH,
    contentType: 'application/json; charset=utf-8',
  },
  wolfram_alpha: {
    name: 'wolfram_alpha',
    ...SERVICE_NAMES.wolfram_alpha,
    baseVar: 'WOLFRAM_API_BASE',
    defaultBase: DEFAULT_WOLFRAM_BASE,
    path: WOLFRAM_PATH,
    contentType: 'text/plain; charset=utf-8',
    // The LLM API answers 501 when it cannot make sense of the input (its text suggests rewordings).
    statusWords: { 501: FAILURE_TEXTS.wolframNotUnderstood() },
  },
};

/** Longest upstream error text quoted back in `detail`. */
const MAX_DETAIL_CHARS = 300;

/**
 * Answers one request, or `undefined` when its target is not under the prefix. Never throws: every
 * failure is an error answer.
 */
export async function handleToolProxyRequest(
  request: ToolProxyRequest,
  options: ToolProxyOptions = {},
): Promise<ToolProxyResponse | undefined> {
  const target = readRequestTarget(request.url, options.prefix ?? DEFAULT_PREFIX, request.method);
  if (target.kind === 'elsewhere') return undefined;
  return answerTarget(target, request, options);
}

/** The answer to a target readRequestTarget found to be ours (refused or not). */
export async function answerTarget(
  target: Exclude<RequestTarget, { kind: 'elsewhere' }>,
  request: ToolProxyRequest,
  options: ToolProxyOptions = {},
): Promise<ToolProxyResponse> {
  const env = options.env ?? process.env;
  const allowed = allowedOrigins(options.corsOrigins, env);
  const answer = await answerFor(target, request, options, allowed);
  const keys = Object.values(SERVICES).map((s) => env[s.keyVar]?.trim() ?? '');
  const headers = Object.fromEntries(Object.entries({ ...answer.headers, ...corsHeaders(request.origin, allowed) }).map(([k, v]) => [k, redactKeys(v, keys)]));
  return { status: answer.status, headers, body: redactKeys(answer.body, keys) };
}

async function answerFor(
  target: Exclude<RequestTarget, { kind: 'elsewhere' }>,
  request: ToolProxyRequest,
  options: ToolProxyOptions,
  allowed: readonly string[],
): Promise<ToolProxyResponse> {
  if (target.kind === 'refused') return errorResponse(400, { error: target.reason });
  const { endpoint, params } = target;
  if (!isEndpoint(endpoint) && endpoint !== SERVICES_ENDPOINT) {
    return errorResponse(404, { error: `no tool endpoint "${endpoint}": use ${TOOL_ENDPOINTS.join(' or ')} (or ${SERVICES_ENDPOINT} to see where they go)` });
  }
  const method = (request.method ?? 'GET').toUpperCase();
  const refusal = crossSiteRefusal(request, allowed);
  if (refusal) return errorResponse(403, { error: refusal });
  if (method === 'OPTIONS') return { status: 204, headers: { ...BASE_HEADERS, ...PREFLIGHT_HEADERS }, body: '' };
  if (method !== 'GET') {
    return { ...errorResponse(405, { error: `${method} is not allowed: use GET` }), headers: { ...JSON_HEADERS, allow: 'GET' } };
  }
  const env = options.env ?? process.env;
  if (!isEndpoint(endpoint)) return { status: 200, headers: JSON_HEADERS, body: JSON.stringify(servicesStatus(options, env)) };
  const service = SERVICES[endpoint];
  const key = env[service.keyVar]?.trim();
  if (!key) {
    return errorResponse(503, {
      error: FAILURE_TEXTS.notConfigured(service.name),
      setup: FAILURE_TEXTS.notConfiguredSetup(service.name),
    });
  }
  const built = endpoint === 'brave_search' ? braveRequest(params, key) : wolframRequest(params, key);
  if ('status' in built) return built;
  const base = upstreamBase(endpoint, options, env);
  const upstreamUrl = `${base.replace(/\/+$/, '')}${service.path}?${built.query}`;
  return callUpstream(upstreamUrl, built.headers, service, request.signal, options);
}

function upstreamBase(endpoint: ToolEndpoint, options: ToolProxyOptions, env: NodeJS.ProcessEnv): string {
  return (endpoint === 'brave_search' ? options.braveBase : options.wolframBase) ?? env[SERVICES[endpoint].baseVar] ?? SERVICES[endpoint].defaultBase;
}

/** What `GET <prefix>services` answers: for each service, whether a key is set and the host a query goes to (never the key). */
function servicesStatus(options: ToolProxyOptions, env: NodeJS.ProcessEnv): ProxyServices {
  const entry = (endpoint: ToolEndpoint) => ({
    configured: Boolean(env[SERVICES[endpoint].keyVar]?.trim()),
    host: hostOf(upstreamBase(endpoint, options, env)),
  });
  return { brave_search: entry('brave_search'), wolfram_alpha: entry('wolfram_alpha') };
}

function hostOf(base: string): string {
  try {
    return new URL(base).host;
  } catch {
    return base;
  }
}

function isEndpoint(name: string): name is ToolEndpoint {
  return (TOOL_ENDPOINTS as readonly string[]).includes(name);
}

type Built = { query: string; headers: Record<string, string> } | ToolProxyResponse;

/** `q` (required, ≤ 400 chars) and `count` (clamped to 1..20, omitted when absent) pass through. */
function braveRequest(params: URLSearchParams, key: string): Built {
  const q = params.get('q')?.trim();
  if (!q) return errorResponse(400, { error: 'missing query: pass ?q=...' });
  if (q.length > BRAVE_MAX_QUERY_CHARS) {
    return errorResponse(400, { error: `query too long: ${q.length} characters, Brave Search takes at most ${BRAVE_MAX_QUERY_CHARS}` });
  }
  const out = new URLSearchParams({ q });
  const count = params.get('count');
  if (count !== null) {
    const n = Number.parseInt(count, 10);
    if (!Number.isFinite(n)) return errorResponse(400, { error: `count must be a whole number, got "${count}"` });
    out.set('count', String(Math.min(Math.max(n, 1), BRAVE_MAX_COUNT)));
  }
  return { query: out.toString(), headers: { accept: 'application/json', 'x-subscription-token': key } };
}

/** `input` (required) and `maxchars` (optional, a positive whole number) pass through; the key rides as `appid`. */
function wolframRequest(params: URLSearchParams, key: string): Built {
  const input = params.get('input')?.trim();
  if (!input) return errorResponse(400, { error: 'missing input: pass ?input=...' });
  const out = new URLSearchParams({ input });
  const maxchars = params.get('maxchars');
  if (maxchars !== null) {
    const n = Number.parseInt(maxchars, 10);
    if (!(n > 0)) return errorResponse(400, { error: `maxchars must be a positive whole number, got "${maxchars}"` });
    out.set('maxchars', String(n));
  }
  out.set('appid', key);
  return { query: out.toString(), headers: { accept: 'text/plain' } };
}

async function callUpstream(
  target: string,
  headers: Record<string, string>,
  service: Service,
  clientSignal: AbortSignal | undefined,
  options: ToolProxyOptions,
): Promise<ToolProxyResponse> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = clientSignal ? AbortSignal.any([deadline, clientSignal]) : deadline;
  const doFetch = options.fetch ?? fetch;
  try {
    // A redirect would carry the key (header or query) to whatever host it names: never followed.
    const response = await doFetch(target, { headers, signal, redirect: 'manual' });
    const body = await response.text();
    if (response.status >= 300 && response.status < 400) {
      return errorResponse(502, { error: `${service.label} answered with a redirect (HTTP ${response.status}), which the proxy does not follow: the key goes only to the configured host`, upstream_status: response.status });
    }
    if (response.ok) return { status: response.status, headers: { ...BASE_HEADERS, 'content-type': service.contentType }, body };
    return upstreamError(response, body, service);
  } catch (cause) {
    if (deadline.aborted) {
      return errorResponse(504, { error: FAILURE_TEXTS.upstreamTimeout(service.name, timeoutMs) });
    }
    if (clientSignal?.aborted) return errorResponse(499, { error: 'the client closed the request' });
    return errorResponse(502, { error: FAILURE_TEXTS.upstreamUnreachable(service.name, networkReason(cause)) });
  }
}

function upstreamError(response: Response, body: string, service: Service): ToolProxyResponse {
  const status = response.status;
  const detail = upstreamDetail(body);
  const out: ToolProxyErrorBody = { error: describeStatus(status, service), upstream_status: status };
  if (detail) out.detail = detail;
  const extra: Record<string, string> = {};
  const retryAfter = response.headers.get('retry-after');
  if (status === 429 && retryAfter) extra['retry-after'] = retryAfter;
  return { ...errorResponse(status, out), headers: { ...JSON_HEADERS, ...extra } };
}

/** Words for an upstream failure status; the status itself is in `upstream_status`. */
function describeStatus(status: number, service: Service): string {
  const own = service.statusWords?.[status];
  if (own) return own;
  if (status === 401 || status === 403) return FAILURE_TEXTS.keyRejected(service.name);
  if (status === 429) return FAILURE_TEXTS.rateLimited(service.name);
  if (status >= 500) return FAILURE_TEXTS.upstreamFailed(service.name, status);
  return FAILURE_TEXTS.upstreamRejected(service.name, status);
}

/** Brave's `{"error": {"detail": ...}}`, a short text body (Wolfram), or nothing. */
function upstreamDetail(body: string): string | undefined {
  let text = body.trim();
  if (text.startsWith('{')) {
    try {
      const parsed = JSON.parse(text) as { error?: { detail?: unknown } | string; message?: unknown };
      const e = parsed.error;
      const found = typeof e === 'string' ? e : typeof e?.detail === 'string' ? e.detail : typeof parsed.message === 'string' ? parsed.message : undefined;
      if (found === undefined) return undefined;
      text = found.trim();
    } catch {
      // not JSON after all: quote it as text
    }
  }
  if (!text || text.startsWith('<')) return undefined; // empty or an HTML error page: the status says enough
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}…` : text;
}

/** A network failure in words, from its code only (messages may carry the upstream URL and its appid). */
function networkReason(cause: unknown): string {
  const inner = (cause as { cause?: { code?: unknown } } | undefined)?.cause;
  const code = typeof inner?.code === 'string' ? inner.code : undefined;
  return code ?? 'network error';
}

const BASE_HEADERS: Record<string, string> = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
const JSON_HEADERS: Record<string, string> = { ...BASE_HEADERS, 'content-type': 'application/json; charset=utf-8' };

function errorResponse(status: number, body: ToolProxyErrorBody): ToolProxyResponse {
  return { status, headers: { ...JSON_HEADERS }, body: JSON.stringify(body) };
}
