/**
 * The malformed-target rule (malformed-target.ts) ahead of everything an http server does: the guard
 * wraps the server's own `request` listeners. As a vite plugin, it runs before all of vite (connect
 * and every middleware) in the dev and preview servers.
 *
 * Why not a first middleware: connect (bundled in vite 8) parses `req.url` with parseurl, and thus
 * Node's legacy `url.parse`, inside its `next()` before it calls any layer, outside the try/catch that
 * guards the layers. `GET http://[ HTTP/1.1` makes `url.parse` throw ERR_INVALID_URL there, in the
 * server's `request` listener, and the uncaught exception ends `vite` and `vite preview`
 * (reproduction: `printf 'GET http://[ HTTP/1.1\r\nHost: localhost\r\n\r\n' | nc 127.0.0.1 5173`).
 * That is a bug of connect's dispatcher (upstream: senchalabs/connect, as bundled by vitejs/vite).
 * Should connect's own URL parsing throw on a target this rule let through, the throw is answered
 * with the same 400 here instead of ending the process.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Plugin } from 'vite';
import { malformedTargetReason, refuseMalformedTarget } from './malformed-target';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

interface RequestEmitter {
  listeners(event: 'request'): Function[];
  removeAllListeners(event: 'request'): unknown;
  on(event: 'request', listener: RequestListener): unknown;
}

/** Puts the rule in front of every `request` listener `server` has now. */
export function guardRequestListeners(server: RequestEmitter): void {
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', function guarded(this: unknown, req, res) {
    const reason = malformedTargetReason(req.method, req.url);
    if (reason !== null) return refuseMalformedTarget(res, reason);
    try {
      for (const listener of listeners) listener.call(this, req, res);
    } catch (e) {
      if (!isUrlError(e)) throw e;
      refuseMalformedTarget(res, 'the request target could not be parsed as a URL');
    }
  });
}

function isUrlError(e: unknown): boolean {
  return e instanceof URIError || (e as { code?: unknown } | null)?.code === 'ERR_INVALID_URL';
}

/** The guard as a vite plugin: vite has attached its listeners when these hooks run. */
export function malformedTargetGuard(): Plugin {
  return {
    name: 'llama-agent:malformed-target-guard',
    configureServer(server) {
      if (server.httpServer) guardRequestListeners(server.httpServer);
    },
    configurePreviewServer(server) {
      guardRequestListeners(server.httpServer);
    },
  };
}
