/**
 * The gates every key-holding endpoint of the dev/preview server passes before anything else (the
 * tool proxy, the engine proxy): the client must be this machine unless remote clients are allowed
 * (TOOL_PROXY_ALLOW_REMOTE=1), and the `Host` must name this server (an IP, `localhost` or one of
 * vite's allowedHosts — a DNS-rebound name is refused). And how such an endpoint is mounted in vite:
 * first in the stack, ahead of vite's own middlewares (its CORS included), for dev and preview alike.
 *
 * Invariant: the caller has already decided from the normalised request target (request-target.ts)
 * that the request is its own; these gates look only at the socket and the Host header.
 */
import type { IncomingMessage } from 'node:http';
import { isHostAllowed } from 'host-validation-middleware';
import type { Connect, Plugin } from 'vite';

export interface LocalGateOptions {
  /** Serve clients other than this machine (default: env TOOL_PROXY_ALLOW_REMOTE=1, else loopback only). */
  allowRemoteClients?: boolean;
  /**
   * Host names the `Host` header may carry besides IP literals and `localhost` (vite's
   * `server.allowedHosts` rules: `.example.com` allows subdomains; `true` allows any). The vite
   * plugins pass the server's own setting. Default none: a DNS-rebound name is refused.
   */
  allowedHosts?: readonly string[] | true;
}

/** A refusal: 403 with a JSON body. */
export interface GateRefusal {
  status: 403;
  body: { error: string; setup?: string };
}

/** Why `req` may not be served by `what` ("the tool proxy"), or null when it may. */
export function localGateRefusal(req: IncomingMessage, options: LocalGateOptions, what: string): GateRefusal | null {
  // The keys' quota is the server owner's: only this machine may spend it unless allowed
  // (`vite --host` would otherwise open the endpoint to the whole network).
  const allowRemote = options.allowRemoteClients ?? process.env.TOOL_PROXY_ALLOW_REMOTE === '1';
  if (!allowRemote && !isLoopback(req.socket?.remoteAddress ?? '')) {
    return { status: 403, body: { error: `${what} only serves this machine`, setup: 'set TOOL_PROXY_ALLOW_REMOTE=1 to serve other machines' } };
  }
  const hosts = options.allowedHosts ?? [];
  if (hosts !== true && !isHostAllowed(req.headers.host, hosts)) {
    return { status: 403, body: { error: `${what} does not serve the host ${JSON.stringify(req.headers.host)}` } };
  }
  return null;
}

export function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** A connect-style middleware that answers its own requests and calls `next()` for the rest. */
export type Middleware = (req: IncomingMessage, res: import('node:http').ServerResponse, next: (err?: unknown) => void) => void;

/**
 * A vite plugin that puts `make(allowedHosts)` first in the dev and preview servers' stacks, with
 * the server's own allowedHosts (plus its `host` when that is a name).
 */
export function firstMiddlewarePlugin(name: string, make: (allowedHosts: readonly string[] | true) => Middleware): Plugin {
  const mount = (middlewares: Connect.Server, server: { allowedHosts: readonly string[] | true; host?: string | boolean | undefined }) => {
    const allowedHosts = server.allowedHosts === true ? true : [...server.allowedHosts, ...(typeof server.host === 'string' ? [server.host] : [])];
    middlewares.stack.unshift({ route: '', handle: make(allowedHosts) as Connect.NextHandleFunction });
  };
  return {
    name,
    configureServer(server) {
      mount(server.middlewares, server.config.server);
    },
    configurePreviewServer(server) {
      mount(server.middlewares, server.config.preview);
    },
  };
}
