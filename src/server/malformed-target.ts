/**
 * The rule every HTTP server of ours applies first, before any gate or route: a request target that
 * cannot be read one way only is a 400, and the server goes on serving. What Node's HTTP parser
 * lets through and this rule still refuses:
 * - anything but origin form (`/path?query`), absolute form with an http(s) scheme, or `*` for OPTIONS;
 * - a space or a control character (URL parsers drop tabs and newlines: `/\t/x` would read as `//x`);
 * - origin form starting with `//` or `/\`: URL parsers read what follows as a host, others as a path;
 * - absolute form with an empty authority (`http:///x`: the WHATWG parser takes `x` for the host,
 *   Node's `url.parse` an empty host), or one the WHATWG URL parser refuses (`http://[`, an invalid
 *   host, a port over 65535);
 * - an invalid percent-encoding anywhere in the target (`%`, `%zz`, `%E0%A4%A`: not UTF-8 once decoded).
 *
 * A target this accepts parses with `new URL(target, base)`, and its path and query decode with
 * decodeURIComponent, so no code behind the rule throws reading it.
 */
import type { ServerResponse } from 'node:http';

/** Why `target` is malformed, in words for the 400's body, or null when it is well formed. */
export function malformedTargetReason(method: string | undefined, target: string | undefined): string | null {
  const raw = target ?? '';
  if (/[\x00-\x20\x7f]/.test(raw)) return 'the request target contains a space or a control character';
  if (raw === '*') return method === 'OPTIONS' ? null : 'the request target "*" is only for OPTIONS';
  if (raw.startsWith('/')) {
    if (raw[1] === '/' || raw[1] === '\\') return 'the request path starts with "//" or "/\\", which URL parsers read as a host name: send the path with one leading slash';
  } else if (/^https?:\/\//i.test(raw)) {
    if (!/^https?:\/\/[^/\\?#]/i.test(raw) || !URL.canParse(raw)) return 'the absolute-form request target is not a valid http(s) URL (its host or port is invalid)';
  } else {
    return 'the request target must be a path starting with "/", an absolute http(s) URL, or "*" for OPTIONS';
  }
  if (!decodes(raw)) return 'the request target has an invalid percent-encoding: every "%" must start a UTF-8 byte sequence such as %C3%A9';
  return null;
}

/**
 * Whether decodeURIComponent accepts `text`. Its result is used: a bundler may drop a call to it
 * whose result is not (vite's config bundling does), and the check with it.
 */
function decodes(text: string): boolean {
  try {
    return typeof decodeURIComponent(text) === 'string';
  } catch {
    return false;
  }
}

/** The 400 for a malformed target, as JSON `{"error": reason}`; the connection is closed after it. */
export function refuseMalformedTarget(res: ServerResponse, reason: string): void {
  if (res.headersSent || res.destroyed) return;
  const body = JSON.stringify({ error: reason });
  res.writeHead(400, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body);
}
