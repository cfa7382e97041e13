/**
 * The tool proxy as a vite plugin (dev and preview servers) and as a standalone Node http server, both
 * thin adapters over the handler (./proxy-handler.ts), which holds every rule of the answer.
 *
 * Invariants: the request target is read once (readRequestTarget) and that reading decides
 * everything: targets that are not the proxy's are passed on untouched (`next()` in vite, 404
 * standalone); for the proxy's, the gates come first — a client that is not this machine is refused
 * (403) unless remote clients are allowed, a `Host` that is not allowed (DNS rebinding) is refused
 * (403) — then the handler answers. In vite the middleware runs before vite's own (CORS included),
 * so the proxy's answers and preflights are its own. When the client disconnects, the upstream
 * call is aborted.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Plugin } from 'vite';
import { answerTarget, DEFAULT_PREFIX, type ToolProxyOptions, type ToolProxyResponse } from './proxy-handler';
import { browserContextOf } from './cross-origin';
import { firstMiddlewarePlugin, localGateRefusal, type Middleware } from './local-gate';
import { guardRequestListeners } from './malformed-target-guard';
import { readRequestTarget } from './request-target';

export * from './proxy-handler';

/** A connect-style middleware: answers the prefix, calls `next()` for everything else. */
export type ToolProxyMiddleware = Middleware;

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

export function toolProxyMiddleware(options: ToolProxyOptions = {}): ToolProxyMiddleware {
  return (req, res, next) => {
    const target = readRequestTarget(req.url ?? '/', options.prefix ?? DEFAULT_PREFIX, req.method);
    if (target.kind === 'elsewhere') return next();
    const refusal = localGateRefusal(req, options, 'the tool proxy');
    if (refusal) {
      send(res, { status: refusal.status, headers: JSON_TYPE, body: JSON.stringify(refusal.body) });
      return;
    }
    const controller = new AbortController();
    // `close` on the response before it ended means the client went away.
    res.on('close', () => {
      if (!res.writableEnded) controller.abort();
    });
    answerTarget(target, { url: req.url ?? '/', method: req.method ?? 'GET', ...browserContextOf(req), signal: controller.signal }, options).then(
      (answer) => send(res, answer),
      (error: unknown) => next(error),
    );
  };
}

function send(res: ServerResponse, answer: ToolProxyResponse): void {
  if (res.destroyed) return;
  res.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body) });
  res.end(answer.body);
}

/**
 * Adds `GET <prefix>brave_search?q=...&count=N` and `GET <prefix>wolfram_alpha?input=...` to vite's dev
 * and preview servers. Keys: `BRAVE_API_KEY`, `WOLFRAM_APP_ID` in the server's environment.
 */
export function toolProxy(options: ToolProxyOptions = {}): Plugin {
  return firstMiddlewarePlugin('llama-agent:tool-proxy', (allowedHosts) => toolProxyMiddleware({ allowedHosts, ...options }));
}

export interface ToolProxyServerOptions extends ToolProxyOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1: the proxy spends the keys' quota, so it is not on the network unless asked. */
  host?: string;
}

export interface ToolProxyServer {
  /** `http://host:port`, no trailing slash. */
  url: string;
  /** `url` + the prefix: what the tools take as their proxy base. */
  toolsBase: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/** The proxy without vite, for demos and tests: a malformed target 400, the endpoints, and 404 JSON for anything else. */
export async function startToolProxyServer(options: ToolProxyServerOptions = {}): Promise<ToolProxyServer> {
  const { port = 0, host = '127.0.0.1', ...proxyOptions } = options;
  const middleware = toolProxyMiddleware(proxyOptions);
  const server = createServer((req, res) => {
    middleware(req, res, (error) => {
      const status = error === undefined ? 404 : 500;
      send(res, {
        status,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ error: status === 404 ? 'not found' : 'internal error' }),
      });
    });
  });
  guardRequestListeners(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${hostPart}:${address.port}`;
  return {
    url,
    toolsBase: `${url}${proxyOptions.prefix ?? DEFAULT_PREFIX}`,
    port: address.port,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
