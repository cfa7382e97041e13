/**
 * A loopback HTTP server that answers `/v1/models` and `/v1/completions` with canned responses, for
 * testing the remote backend against shapes of servers that cannot run here (vLLM). Not a model: it
 * replays what a test hands it, and records every request (headers and parsed JSON body).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown> | null;
  /** Set when the client hung up before the answer ended. */
  closedEarly: boolean;
}

/**
 * What to answer: a JSON body with a status, SSE events (each a `data:` payload) sent one by one, or
 * `reset`: close the connection without answering (what a client sees when it reuses a connection the
 * server has just closed).
 */
export type FixtureAnswer =
  | { status: number; json: unknown }
  | { reset: true }
  | {
      sse: readonly string[];
      /** stop after this many events without ending the response, then destroy the socket */
      dropAfter?: number;
      /** after this many events, wait for `until` before the rest (a test holds the stream open) */
      pauseAfter?: { events: number; until: Promise<void> };
    }
  /** Exactly these bytes, chunk by chunk, with these headers (a hostile upstream: keys split across chunks, redirects). */
  | { status: number; headers?: Record<string, string>; chunks: readonly string[] }
  /** 200 JSON of what was received: method, path and headers. */
  | { reflect: true };

export interface FixtureServer {
  readonly url: string;
  readonly requests: RecordedRequest[];
  models: FixtureAnswer;
  completions: FixtureAnswer;
  /** Answers for the next completions requests, in order, before `completions` applies again. */
  readonly queue: FixtureAnswer[];
  close(): Promise<void>;
}

export async function startFixtureServer(): Promise<FixtureServer> {
  const requests: RecordedRequest[] = [];
  const queue: FixtureAnswer[] = [];
  const state = {
    models: { status: 200, json: { object: 'list', data: [] } } as FixtureAnswer,
    completions: { status: 500, json: { error: { message: 'no fixture' } } } as FixtureAnswer,
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> | null = null;
      try {
        body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
      } catch {
        body = null;
      }
      const path = (req.url ?? '').split('?')[0]!;
      const record: RecordedRequest = { method: req.method ?? '', path, headers: req.headers, body, closedEarly: false };
      requests.push(record);
      res.on('close', () => {
        if (!res.writableFinished) record.closedEarly = true;
      });
      const answer = path === '/v1/models' ? state.models
        : path === '/v1/completions' ? (queue.shift() ?? state.completions)
        : { status: 404, json: { error: { message: 'Not Found' } } };
      void respond(res, answer, record);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    queue,
    get models() {
      return state.models;
    },
    set models(a) {
      state.models = a;
    },
    get completions() {
      return state.completions;
    },
    set completions(a) {
      state.completions = a;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function respond(res: ServerResponse, answer: FixtureAnswer, request: RecordedRequest): Promise<void> {
  if ('reset' in answer) {
    res.socket?.destroy();
    return;
  }
  if ('reflect' in answer) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ method: request.method, path: request.path, headers: request.headers }));
    return;
  }
  if ('chunks' in answer) {
    res.writeHead(answer.status, answer.headers ?? {});
    for (const chunk of answer.chunks) {
      res.write(chunk);
      await new Promise((r) => setTimeout(r, 1));
    }
    res.end();
    return;
  }
  if ('json' in answer) {
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.json));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [i, data] of answer.sse.entries()) {
    if (answer.dropAfter !== undefined && i >= answer.dropAfter) {
      res.socket?.destroy();
      return;
    }
    if (answer.pauseAfter && i === answer.pauseAfter.events) await answer.pauseAfter.until;
    if (res.destroyed) return;
    res.write(`data: ${data}\n\n`);
    await new Promise((r) => setTimeout(r, 1));
  }
  res.end();
}
