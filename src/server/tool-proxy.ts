/**
 * The tool proxy as a vite plugin (dev and preview servers) and as a standalone Node http server, both
 * thin adapters over `handleToolProxyRequest` (./proxy-handler.ts), which holds every rule.
 *
 * Invariant: requests outside the prefix are passed on untouched (`next()` in vite, 404 standalone);
 * when the client disconnects, the upstream call is aborted.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Plugin } from 'vite';
import { DEFAULT_PREFIX, handleToolProxyRequest, type ToolProxyOptions, type ToolProxyResponse } from './proxy-handler';

export * from './proxy-handler';

/** A connect-style middleware: answers the prefix, calls `next()` for everything else. */
export type ToolProxyMiddleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

export function toolProxyMiddleware(options: ToolProxyOptions = {}): ToolProxyMiddleware {
  return (req, res, next) => {
    // The keys' quota is the server owner's: only this machine may spend it unless allowed
    // (`vite --host` would otherwise open the proxy to the whole network).
    const remote = req.socket?.remoteAddress ?? '';
    const allowRemote = options.allowRemoteClients ?? process.env.TOOL_PROXY_ALLOW_REMOTE === '1';
    if (!allowRemote && !isLoopback(remote) && (req.url ?? '').startsWith(options.prefix ?? '/api/tools/')) {
      send(res, {
        status: 403,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ error: 'the tool proxy only serves this machine', setup: 'set TOOL_PROXY_ALLOW_REMOTE=1 to serve other machines' }),
      });
      return;
    }
    const controller = new AbortController();
    // `close` on the response before it ended means the client went away.
    res.on('close', () => {
      if (!res.writableEnded) controller.abort();
    });
    handleToolProxyRequest(
      {
        url: req.url ?? '/',
        method: req.method ?? 'GET',
        ...(typeof req.headers.origin === 'string' ? { origin: req.headers.origin } : {}),
        signal: controller.signal,
      },
      options,
    ).then(
      (answer) => (answer ? send(res, answer) : next()),
      (error: unknown) => next(error),
    );
  };
}

function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
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
  const middleware = toolProxyMiddleware(options);
  return {
    name: 'llama-agent:tool-proxy',
    configureServer(server) {
      server.middlewares.use(middleware);
    },
    configurePreviewServer(server) {
      server.middlewares.use(middleware);
    },
  };
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

/** The proxy without vite, for demos and tests: the endpoints, and 404 JSON for anything else. */
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
