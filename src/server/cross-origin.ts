/**
 * Who may call the tool proxy from a browser, and the CORS answer it gives: the proxy's own, never
 * the dev server's (vite's default `server.cors` would reflect any localhost origin).
 *
 * Invariants:
 * - A request is the page's own when its `Origin` (if sent) is the server's own origin and its
 *   `Sec-Fetch-Site` (if sent) is `same-origin` or `none`; otherwise it must come from an origin on
 *   the allow-list (TOOL_PROXY_CORS_ORIGINS; `*` allows any) or it is refused before anything is
 *   sent upstream. A client that sends neither header (curl, the CLI) is not a browser page.
 * - `Access-Control-Allow-Origin` is sent only to an origin on the list (`*` when the list says so);
 *   a preflight succeeds only for those, for GET and no extra request headers.
 */

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
export function crossSiteRefusal(request: BrowserContext, allowed: readonly string[]): string | null {
  if (listed(request.origin, allowed)) return null;
  const site = request.secFetchSite?.toLowerCase();
  const sameSite = site === undefined || site === 'same-origin' || site === 'none';
  if ((request.origin === undefined || ownOrigin(request)) && sameSite) return null;
  const who = request.origin ?? `a ${site} page`;
  return `cross-origin request from ${who} refused: the tool proxy serves its own page and the origins listed in TOOL_PROXY_CORS_ORIGINS`;
}

/** The CORS headers of an answer to `origin`. */
export function corsHeaders(origin: string | undefined, allowed: readonly string[]): Record<string, string> {
  if (allowed.includes('*')) return { 'access-control-allow-origin': '*' };
  return origin !== undefined && allowed.includes(origin) ? { 'access-control-allow-origin': origin, vary: 'Origin' } : { vary: 'Origin' };
}

/** Headers of a successful preflight (the caller has checked the origin). */
export const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-methods': 'GET',
  'access-control-max-age': '600',
};
