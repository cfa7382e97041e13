/**
 * The engine proxy: `GET <prefix>v1/models` and `POST <prefix>v1/completions` (prefix `/api/engine/`)
 * on the dev and preview servers, forwarded to the engine server named by LLAMA_ENGINE_URL (vLLM,
 * llama-server) with the key from LLAMA_ENGINE_API_KEY, so a page drives a server without ever
 * holding its key. Node only.
 *
 * Invariants — the tool proxy's rules, through the same pieces:
 * - The request target is read once (request-target.ts): a target under the prefix written any way
 *   but plainly is a 400; then the loopback and Host gates (local-gate.ts); then a browser request
 *   from another site that TOOL_PROXY_CORS_ORIGINS does not list is refused before anything goes
 *   upstream, and the CORS answer is ours alone (cross-origin.ts).
 * - Upstream receives the body and the key only: no cookie, no client `Authorization`, no other
 *   header; a redirect is never followed (502), so the key goes only to the configured server.
 * - Every answer — headers, our JSON errors, the upstream body — passes through the redaction of the
 *   key in every spelling (key-redaction.ts; line by line for the stream, redacting-stream.ts).
 * - The stream is passed on as it arrives. A client that goes away aborts the upstream request (the
 *   server stops generating); an upstream that fails mid-stream ends the client's response abruptly,
 *   as a lost direct connection would.
 * - An upstream silent for the timeout (LLAMA_ENGINE_TIMEOUT_MS, default 300 s: a long prompt's first
 *   token included) is given up on: before its headers, a 504; mid-stream, between two chunks, the
 *   client's response ends abruptly. Either way the upstream request is aborted.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Plugin } from 'vite';
import { endpoint } from '../engine/remote/remote-config';
import { allowedOrigins, browserContextOf, corsHeaders, crossSiteRefusal, preflightHeaders } from './cross-origin';
import { redactKeys } from './key-redaction';
import { firstMiddlewarePlugin, localGateRefusal, type LocalGateOptions, type Middleware } from './local-gate';
import { isLineSafeKey, redactingStream } from './redacting-stream';
import { readRequestTarget } from './request-target';

export const ENGINE_PROXY_PREFIX = '/api/engine/';
export const ENGINE_URL_VAR = 'LLAMA_ENGINE_URL';
export const ENGINE_KEY_VAR = 'LLAMA_ENGINE_API_KEY';
export const ENGINE_TIMEOUT_VAR = 'LLAMA_ENGINE_TIMEOUT_MS';
/** How long the upstream may stay silent: until its headers, and between two chunks of its body. */
export const DEFAULT_ENGINE_TIMEOUT_MS = 300_000;
/** A completions body: the prompt's ids and the bans (a 128k-token prompt is about 1 MB of JSON). */
export const MAX_BODY_BYTES = 8 * 2 ** 20;

/** The endpoints, after the prefix, and the one method each takes. */
const ROUTES: Record<string, 'GET' | 'POST'> = { 'v1/models': 'GET', 'v1/completions': 'POST' };

export interface EngineProxyOptions extends LocalGateOptions {
  /** Where LLAMA_ENGINE_URL, LLAMA_ENGINE_API_KEY and TOOL_PROXY_CORS_ORIGINS are read, per request. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Origins allowed to call cross-origin; default env TOOL_PROXY_CORS_ORIGINS (comma-separated), else none. */
  corsOrigins?: readonly string[];
  /** Default `/api/engine/`. */
  prefix?: string;
  /** The fetch used upstream (tests). Default the global one. */
  fetch?: typeof fetch;
  /** Largest request body accepted. Default 8 MiB. */
  maxBodyBytes?: number;
  /** Upstream silence allowed, ms (until its headers, and between chunks). Default env LLAMA_ENGINE_TIMEOUT_MS, else 300 s. */
  timeoutMs?: number;
}

const BASE_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

export function engineProxyMiddleware(options: EngineProxyOptions = {}): Middleware {
  const prefix = options.prefix ?? ENGINE_PROXY_PREFIX;
  return (req, res, next) => {
    const target = readRequestTarget(req.url ?? '/', prefix, req.method);
    if (target.kind === 'elsewhere') return next();
    const env = options.env ?? process.env;
    const key = env[ENGINE_KEY_VAR]?.trim() ?? '';
    const allowed = allowedOrigins(options.corsOrigins, env);
    const context = browserContextOf(req);
    const reply = (status: number, body: object, headers: Record<string, string> = {}) =>
      sendJson(res, status, body, { ...corsHeaders(context.origin, allowed), ...headers }, key);

    const gate = localGateRefusal(req, options, 'the engine proxy');
    if (gate) return sendJson(res, gate.status, gate.body, {}, key);
    if (target.kind === 'refused') return reply(400, { error: target.reason });
    const method = ROUTES[target.endpoint];
    if (!method) return reply(404, { error: `no engine endpoint "${target.endpoint}": use ${Object.keys(ROUTES).join(' or ')}` });
    const crossSite = crossSiteRefusal(context, allowed, 'the engine proxy');
    if (crossSite) return reply(403, { error: crossSite });
    if (req.method === 'OPTIONS') return reply(204, {}, preflightHeaders([method], method === 'POST' ? ['content-type'] : []));
    if (req.method !== method) return reply(405, { error: `${req.method} is not allowed: use ${method}` }, { allow: method });

    const upstream = upstreamBase(env);
    if ('error' in upstream) return reply(503, upstream);
    if (!isLineSafeKey(key)) return reply(500, { error: `${ENGINE_KEY_VAR} contains a line break: set it to the key alone` });
    const timeoutMs = options.timeoutMs ?? timeoutFrom(env);
    if (timeoutMs === null) return reply(500, { error: `${ENGINE_TIMEOUT_VAR} must be a positive whole number of milliseconds` });
    if (method === 'POST' && !/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
      return reply(415, { error: 'send the request body as application/json' });
    }
    const controller = new AbortController();
    // `close` on the response before it ended means the client went away.
    res.on('close', () => {
      if (!res.writableEnded) controller.abort();
    });
    const cors = corsHeaders(context.origin, allowed);
    forward(req, res, { url: endpoint(upstream.url, target.endpoint.slice('v1/'.length)), method, key, cors, signal: controller.signal, timeoutMs }, options).catch((e: unknown) => {
      if (res.headersSent) res.destroy();
      else next(e);
    });
  };
}

/** The engine server's base URL from the environment, or the 503 body saying how to set it. */
function upstreamBase(env: Record<string, string | undefined>): { url: string } | { error: string; setup: string } {
  const setup = `set ${ENGINE_URL_VAR} to the engine server's URL (http://host:port, vLLM or llama-server) in the environment of the dev/preview server, and ${ENGINE_KEY_VAR} if it needs a key`;
  const url = env[ENGINE_URL_VAR]?.trim();
  if (!url) return { error: `the engine proxy has no engine server: ${ENGINE_URL_VAR} is not set`, setup };
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    // reported below
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.username || parsed.password) {
    return { error: `${ENGINE_URL_VAR} must be an http(s) URL without a user name or password`, setup };
  }
  return { url };
}

/** LLAMA_ENGINE_TIMEOUT_MS, the default when unset, or null when it is not a positive whole number. */
function timeoutFrom(env: Record<string, string | undefined>): number | null {
  const text = env[ENGINE_TIMEOUT_VAR]?.trim();
  if (!text) return DEFAULT_ENGINE_TIMEOUT_MS;
  return /^\d+$/.test(text) && Number(text) > 0 ? Number(text) : null;
}

interface Forward {
  url: string;
  method: 'GET' | 'POST';
  key: string;
  cors: Record<string, string>;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  timeoutMs: number;
}

async function forward(req: IncomingMessage, res: ServerResponse, f: Forward, options: EngineProxyOptions): Promise<void> {
  const reply = (status: number, body: object) => sendJson(res, status, body, f.cors, f.key);
  let body: string | undefined;
  if (f.method === 'POST') {
    const read = await readBody(req, options.maxBodyBytes ?? MAX_BODY_BYTES);
    if (read === null) return reply(413, { error: `the request body is over ${options.maxBodyBytes ?? MAX_BODY_BYTES} bytes` });
    body = read.toString('utf8'); // JSON is UTF-8
  }
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
  if (body) headers['content-type'] = 'application/json';
  if (f.key) headers.authorization = `Bearer ${f.key}`;
  const silence = silenceDeadline(f.timeoutMs);
  try {
    await relay(res, f, headers, body, silence, options);
  } finally {
    silence.stop();
  }
}

async function relay(res: ServerResponse, f: Forward, headers: Record<string, string>, body: string | undefined, silence: SilenceDeadline, options: EngineProxyOptions): Promise<void> {
  const reply = (status: number, out: object) => sendJson(res, status, out, f.cors, f.key);
  const signal = AbortSignal.any([f.signal, silence.signal]);
  let response: Response;
  try {
    // A redirect would carry the key to whatever host it names: never followed.
    response = await (options.fetch ?? fetch)(f.url, { method: f.method, headers, ...(body ? { body } : {}), redirect: 'manual', signal });
  } catch (e) {
    if (f.signal.aborted) return void res.destroy();
    if (silence.signal.aborted) return reply(504, { error: `the engine server (${ENGINE_URL_VAR}) sent no answer within ${f.timeoutMs / 1000} s (${ENGINE_TIMEOUT_VAR})` });
    return reply(502, { error: `the engine server (${ENGINE_URL_VAR}) cannot be reached: ${reason(e)}` });
  }
  silence.restart();
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel().catch(() => {});
    return reply(502, { error: `the engine server answered with a redirect (HTTP ${response.status}), which the engine proxy does not follow: the key goes only to the configured server` });
  }
  res.writeHead(response.status, {
    ...BASE_HEADERS,
    'content-type': redactKeys(response.headers.get('content-type') ?? 'application/octet-stream', [f.key]),
    ...f.cors,
  });
  if (!response.body) return void res.end();
  // Each chunk from upstream, whole lines or not, restarts the deadline.
  const heard = new TransformStream<Uint8Array, Uint8Array>({ transform: (chunk, out) => (silence.restart(), out.enqueue(chunk)) });
  const reader = response.body.pipeThrough(heard).pipeThrough(redactingStream([f.key])).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // Written as it arrives (server-sent events); waits when the client reads slower than upstream
      // sends, and that wait is the client's, not upstream's silence.
      if (!res.write(value)) {
        silence.stop();
        await new Promise((resolve) => res.once('drain', resolve));
        silence.restart();
      }
      if (res.destroyed) return void reader.cancel().catch(() => {});
    }
    res.end();
  } catch {
    // Upstream failed mid-stream (or the client left): end the client's response abruptly, as a lost connection.
    res.destroy();
  }
}

interface SilenceDeadline {
  /** Aborted once `ms` pass without a restart. */
  signal: AbortSignal;
  restart(): void;
  stop(): void;
}

function silenceDeadline(ms: number): SilenceDeadline {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const stop = () => clearTimeout(timer);
  const restart = () => {
    stop();
    timer = setTimeout(() => controller.abort(new DOMException(`no data for ${ms} ms`, 'TimeoutError')), ms);
  };
  restart();
  return { signal: controller.signal, restart, stop };
}

/** The whole request body, or null when it is over `limit` bytes (the rest is not read). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        resolve(null);
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(size > limit ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function reason(e: unknown): string {
  const code = (e as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused (is it running?)';
  if (code === 'ENOTFOUND') return 'no such host';
  return e instanceof Error ? e.message : String(e);
}

function sendJson(res: ServerResponse, status: number, body: object, headers: Record<string, string>, key: string): void {
  if (res.destroyed) return;
  const text = status === 204 ? '' : redactKeys(JSON.stringify(body), [key]);
  res.writeHead(status, { ...BASE_HEADERS, ...(status === 204 ? {} : { 'content-type': 'application/json; charset=utf-8' }), ...headers, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Adds the engine proxy to vite's dev and preview servers (env: LLAMA_ENGINE_URL, LLAMA_ENGINE_API_KEY). */
export function engineProxy(options: EngineProxyOptions = {}): Plugin {
  return firstMiddlewarePlugin('llama-agent:engine-proxy', (allowedHosts) => engineProxyMiddleware({ allowedHosts, ...options }));
}
