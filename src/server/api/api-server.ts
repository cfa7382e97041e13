/**
 * The OpenAI-compatible HTTP server (Node): `/v1/models`, `/v1/chat/completions` and `/v1/completions`
 * (JSON, or server-sent events with `"stream": true`) over the same surfaces the page uses
 * (src/api/openai/), on one in-process engine.
 *
 * Invariants: a malformed request target is a 400 before anything else (malformed-target.ts);
 * nothing is read before the guards pass (request-guards.ts: an allowed Host, JSON only; then the
 * key); every failure is OpenAI's error shape with its status (bad JSON and
 * bad fields 400, a wrong key 401, a foreign Host 403, an unknown model or route 404, a body that is
 * not JSON 415, a prompt that does not fit 400
 * `context_length_exceeded`); a client that disconnects aborts its generation, so the engine is free
 * for the next request at once; the engine runs as many generations at once as it has KV-cache slots
 * (advancing them step by step in turn), the others wait in arrival order.
 */
import { SERVED_BY } from '../../engine/served-by';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ApiEngine, SurfaceOptions } from '../../api/api-engine';
import { ApiError, toApiError } from '../../api/api-error';
import type { ChatTurnResult } from '../../api/chat-types';
import { createChatCompletions } from '../../api/openai/create-chat-completions';
import { createTextCompletions } from '../../api/openai/text-completions';
import type { TranscriptMemory } from '../../api/transcript-memory';
import { isAbortError } from '../../engine/errors';
import { malformedTargetReason } from '../malformed-target';
import { checkBearer } from './bearer-auth';
import { ServerMetrics } from './server-metrics';
import { readJsonBody } from './read-json-body';
import { checkContentType, checkHost, LOOPBACK_HOSTS } from './request-guards';
import { endEvents, sendEvent, startEvents } from './sse';

export interface ApiServerOptions extends SurfaceOptions {
  engine: ApiEngine;
  /** Every request must carry `Authorization: Bearer <apiKey>` (default: no key asked). */
  apiKey?: string;
  /** Host names (and IP literals) requests may be addressed to, lowercase (default: loopback's). */
  allowedHosts?: readonly string[];
  memory?: TranscriptMemory;
  onTurn?: (turn: ChatTurnResult) => void;
  /**
   * Generations that may wait for a free slot of the engine; a completion request beyond them
   * is a 503 `overloaded` with `Retry-After`, before anything is read. Default 32.
   */
  maxQueued?: number;
}

export const DEFAULT_MAX_QUEUED = 32;

type Handler = (req: IncomingMessage, res: ServerResponse, signal: AbortSignal) => Promise<void>;

export function createApiServer(options: ApiServerOptions): Server {
  const { engine: served, apiKey, allowedHosts = LOOPBACK_HOSTS, maxQueued = DEFAULT_MAX_QUEUED, ...surface } = options;
  const metrics = new ServerMetrics();
  const engine = metrics.counting(served);
  const chat = createChatCompletions(engine, surface);
  const text = createTextCompletions(engine, surface);
  const created = Math.floor(Date.now() / 1000);

  // `max_model_len` as vLLM names the context window: an engine client in front of this server reads it.
  const models = (): Array<{ id: string; object: 'model'; created: number; owned_by: string; max_model_len: number }> =>
    engine.model ? [{ id: engine.model.modelId, object: 'model', created, owned_by: SERVED_BY, max_model_len: engine.model.contextWindow }] : [];

  const routes: Record<string, Partial<Record<string, Handler>>> = {
    '/v1/models': { GET: async (_req, res) => sendJson(res, 200, { object: 'list', data: models() }) },
    '/v1/chat/completions': { POST: async (req, res, signal) => answer(res, await chat.chat.completions.create((await readJsonBody(admit(req))) as never, { signal })) },
    '/v1/completions': { POST: async (req, res, signal) => answer(res, await text.completions.create((await readJsonBody(admit(req))) as never, { signal })) },
    '/metrics': {
      GET: async (_req, res) => {
        const body = metrics.render();
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      },
    },
  };

  /** The request, when the engine's queue has room for it; else the 503 that says to come back. */
  const admit = (req: IncomingMessage): IncomingMessage => {
    if (metrics.queued() < maxQueued) return req;
    throw new ApiError(503, 'service_unavailable', 'overloaded', `${metrics.queued()} generations are waiting for the engine (at most ${maxQueued}): retry shortly`);
  };

  const modelRoute = (path: string): Handler | undefined => {
    const id = /^\/v1\/models\/(.+)$/.exec(path)?.[1];
    if (id === undefined) return undefined;
    return async (_req, res) => {
      const model = models().find((m) => m.id === decodeURIComponent(id));
      if (!model) throw new ApiError(404, 'not_found_error', 'model_not_found', `The model "${decodeURIComponent(id)}" does not exist here`, 'model');
      sendJson(res, 200, model);
    };
  };

  return createServer((req, res) => {
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const run = async () => {
      const malformed = malformedTargetReason(req.method, req.url);
      if (malformed !== null) {
        res.setHeader('connection', 'close');
        throw new ApiError(400, 'invalid_request_error', 'malformed_request_target', malformed);
      }
      const path = new URL(req.url ?? '/', 'http://server').pathname.replace(/\/+$/, '');
      checkHost(req, allowedHosts);
      // Liveness for load balancers and orchestrators, as llama-server's: no key needed, nothing revealed but the model's id.
      if (path === '/health' && req.method === 'GET') {
        return engine.model ? sendJson(res, 200, { status: 'ok', model: engine.model.modelId }) : sendJson(res, 503, { status: 'no model loaded' });
      }
      checkBearer(req, apiKey);
      checkContentType(req);
      const byMethod = routes[path];
      const handler = byMethod ? byMethod[req.method ?? ''] : req.method === 'GET' ? modelRoute(path) : undefined;
      if (handler) return handler(req, res, controller.signal);
      if (byMethod) throw new ApiError(405, 'invalid_request_error', 'method_not_allowed', `${req.method} is not allowed on ${path}: use ${Object.keys(byMethod).join(', ')}`);
      throw new ApiError(404, 'not_found_error', 'unknown_url', `no route ${req.method} ${path}: this server serves /v1/models, /v1/chat/completions, /v1/completions, /health and /metrics`);
    };
    res.on('finish', () => metrics.request(knownRoute(req.url), res.statusCode));
    run().catch((e: unknown) => {
      if (isAbortError(e) || res.headersSent) return; // the client has gone, or a stream ended its own way
      const error = toApiError(e);
      // A body that was not read to its end leaves the connection unusable: close it after answering.
      if (error.status === 413 || error.code === 'overloaded') res.setHeader('connection', 'close');
      if (error.code === 'overloaded') res.setHeader('retry-after', '1');
      sendJson(res, error.status, error.toJSON());
    });
  });
}

/** The route a request target names, for the metrics' labels (never the raw target: its cardinality is the client's). */
function knownRoute(url: string | undefined): string {
  const path = (url ?? '').split('?')[0]!.replace(/\/+$/, '');
  if (['/v1/models', '/v1/chat/completions', '/v1/completions', '/health', '/metrics'].includes(path)) return path;
  return path.startsWith('/v1/models/') ? '/v1/models/{id}' : 'other';
}

/**
 * A finished response as JSON, a stream as server-sent events. The events start with the stream's
 * first chunk, so a request refused before it (a constraint that does not compile) is answered with
 * its own status, as a request that is not streamed.
 */
async function answer(res: ServerResponse, out: object | AsyncIterable<unknown>): Promise<void> {
  if (!(Symbol.asyncIterator in out)) return sendJson(res, 200, out);
  const chunks = out[Symbol.asyncIterator]();
  const first = await chunks.next();
  startEvents(res);
  try {
    for (let next = first; !next.done; next = await chunks.next()) sendEvent(res, next.value);
    endEvents(res);
  } catch (e) {
    if (isAbortError(e)) {
      res.destroy();
      return;
    }
    endEvents(res, toApiError(e));
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
