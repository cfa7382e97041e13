/**
 * Engine server URLs as a page, the CLI or models.json writes them. Pure and browser-safe.
 *
 * Invariants: a server URL is http(s) (or a path such as `/api/engine/`, which only a page can
 * resolve) and has no user name, password, query or fragment (a page must never hold credentials: the
 * dev/preview server adds the key). Anything else is an EngineError('invalid_request') that says what to
 * write instead.
 */
import { EngineError } from './errors';

const invalid = (message: string): never => {
  throw new EngineError('invalid_request', message);
};

/**
 * An engine server's base URL, trimmed: `http(s)://host[:port][/path]` or a path from the site's root
 * (`/api/engine/`). Throws EngineError('invalid_request') in plain words otherwise.
 */
export function checkServerUrl(raw: string): string {
  const url = raw.trim();
  if (url.startsWith('/') && !url.startsWith('//')) {
    if (/[?#]/.test(url)) return invalid(`the engine URL ${url} must not have a query or fragment`);
    return url;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return invalid(`${JSON.stringify(url)} is not a URL: write http://host:port (or a path on this site, such as /api/engine/)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return invalid(`the engine URL must be http or https, not ${parsed.protocol}`);
  if (parsed.username || parsed.password) {
    return invalid('the engine URL must not carry a user name or password: set the API key in the environment (LLAMA_ENGINE_API_KEY) instead');
  }
  if (parsed.search || parsed.hash) return invalid(`the engine URL ${url} must not have a query or fragment`);
  return url;
}

/** Whether a server URL is a path that still needs the site's origin. */
export function isSitePath(url: string): boolean {
  return url.startsWith('/') && !url.startsWith('//');
}
