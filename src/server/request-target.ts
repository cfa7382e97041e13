/**
 * The one reading of an HTTP request target that decides whether a request is the tool proxy's: the
 * loopback gate, the host check and the route all use what this returns, never the raw `req.url`.
 *
 * Invariants:
 * - A target is the proxy's when its path, normalised as a browser would (WHATWG URL: dot segments
 *   resolved, `%2e` read as `.`, `\` as `/`, an absolute-form target read for its path), starts with
 *   the prefix.
 * - Such a target is served only in plain origin form: a path that starts with `/` and is exactly its
 *   own normalisation, no fragment. Any other spelling (`/./api/…`, `/x/../api/…`, `/%2e/api/…`,
 *   `GET http://host/api/…`) is `refused`, so no two spellings can disagree about what was asked.
 * - The query is read from the target as sent (form decoding), so the parameters are the ones the
 *   client wrote.
 * - A malformed target (malformed-target.ts) that names the prefix, as written or once normalised,
 *   is `refused`; any other is left to the server (whose own guard answers it).
 */
import { malformedTargetReason } from './malformed-target';

export type RequestTarget =
  | { kind: 'elsewhere' }
  | { kind: 'refused'; reason: string }
  | { kind: 'tool'; /** The path after the prefix, as sent (e.g. `brave_search`). */ endpoint: string; params: URLSearchParams };

const BASE = 'http://proxy.invalid';

/** `method` matters only for the target `*`, which is well formed for OPTIONS alone. */
export function readRequestTarget(raw: string, prefix: string, method?: string): RequestTarget {
  const malformed = malformedTargetReason(method, raw);
  if (malformed !== null) {
    const named = raw.includes(prefix) || (URL.canParse(raw, BASE) && new URL(raw, BASE).pathname.startsWith(prefix));
    return named ? { kind: 'refused', reason: malformed } : { kind: 'elsewhere' };
  }
  const normalised = new URL(raw, BASE);
  if (!normalised.pathname.startsWith(prefix)) return { kind: 'elsewhere' };
  const queryAt = raw.indexOf('?');
  const path = queryAt < 0 ? raw : raw.slice(0, queryAt);
  if (!raw.startsWith('/')) {
    return { kind: 'refused', reason: 'absolute-form request targets are refused: send the path only (GET /api/tools/...)' };
  }
  if (raw.includes('#') || path !== normalised.pathname) {
    return { kind: 'refused', reason: 'the request path must be written plainly: no "." or ".." segments, encoded dots or backslashes' };
  }
  return {
    kind: 'tool',
    endpoint: path.slice(prefix.length),
    params: new URLSearchParams(queryAt < 0 ? '' : raw.slice(queryAt + 1)),
  };
}
