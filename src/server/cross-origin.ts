/**
 * Who may call the server's proxies (the tool proxy, the engine proxy) from a browser, and the CORS
 * answer they give: their own, never the dev server's (vite's default `server.cors` would reflect any
 * localhost origin).
 *
 * Invariants:
 * - A request is the page's own when its `Origin` (if sent) is the server's own origin and its
 *   `Sec-Fetch-Site` (if sent) is `same-origin` or `none`; otherwise it must come from an origin on
 *   the allow-list (TOOL_PROXY_CORS_ORIGINS; `*` allows any) or it is refused before anything is
 *   sent upstream. A client that sends neither header (curl, the CLI) is not a browser page.
 * - `Access-Control-Allow-Origin` is sent only to an origin on the list (`*` when the list says so);
 *   a preflight succeeds only for those, for the methods and request headers the endpoint names.
 */
import type { IncomingMessage } from 'node:http';

export interface BrowserContext {
  /** The `Origin` request header. */
  origin?: string;
  /** The `Sec-Fetch-Site` request header. */
  secFetchSite?: string;
  /** The `Host` request header: the server's own origin is `http(s)://` + this. */
  host?: string;
}

/** The allow-list: the option, else env TOOL_PROXY_CORS_ORIGINS (comma-separated), else none. */
export function allowedOrigins(option: readonly string[] | undefined, env: Record<string, string | undefined>): readonly string[] {
  return option ?? env.TOOL_PROXY_CORS_ORIGINS?.split(',').map((o) => o.trim()).filter(Boolean) ?? [];
}

function listed(origin: string | undefined, allowed: readonly string[]): boolean {
  return allowed.includes('*') || (origin !== undefined && allowed.includes(origin));
}

function ownOrigin({ origin, host }: BrowserContext): boolean {
  return origin !== undefined && host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
}

/** Why a request is refused as cross-site, or null when it may be served. */
export function crossSiteRefusal(request: BrowserContext, allowed: readonly string[], what = 'the tool proxy'): string | null {
  if (listed(request.origin, allowed)) return null;
  const site = request.secFetchSite?.toLowerCase();
  const sameSite = site === undefined || site === 'same-origin' || site === 'none';
  if ((request.origin === undefined || ownOrigin(request)) && sameSite) return null;
  const who = request.origin ?? `a ${site} page`;
  return `cross-origin request from ${who} refused: ${what} serves its own page and the origins listed in TOOL_PROXY_CORS_ORIGINS`;
}

/** The CORS headers of an answer to `origin`. */
export function corsHeaders(origin: string | undefined, allowed: readonly string[]): Record<string, string> {
  if (allowed.includes('*')) return { 'access-control-allow-origin': '*' };
  return origin !== undefined && allowed.includes(origin) ? { 'access-control-allow-origin': origin, vary: 'Origin' } : { vary: 'Origin' };
}

/** Headers of a successful preflight for these methods and request headers (the caller has checked the origin). */
export function preflightHeaders(methods: readonly string[], requestHeaders: readonly string[] = []): Record<string, string> {
  return {
    'access-control-allow-methods': methods.join(', '),
    ...(requestHeaders.length > 0 ? { 'access-control-allow-headers': requestHeaders.join(', ') } : {}),
    'access-control-max-age': '600',
  };
}

/** The tool proxy's preflight: GET and no extra request headers. */
export const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = preflightHeaders(['GET']);

/** The request headers that say which page (if any) sent it. */
export function browserContextOf(req: IncomingMessage): BrowserContext {
  const out: BrowserContext = {};
  const { origin, host } = req.headers;
  const site = req.headers['sec-fetch-site'];
  if (typeof origin === 'string') out.origin = origin;
  if (typeof host === 'string') out.host = host;
  if (typeof site === 'string') out.secFetchSite = site;
  return out;
}
