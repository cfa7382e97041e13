/**
 * What a request must show before it is read, so a web page the user visits cannot drive a local
 * server through the browser:
 * - a POST body is `application/json`: a cross-site page can send `text/plain` or a form without a
 *   CORS preflight, but not JSON (the preflight gets no CORS answer here, so the browser stops);
 * - on a loopback bind, the Host header names loopback: a DNS-rebinding page reaches 127.0.0.1 under
 *   its own name, and is refused (403). A server bound elsewhere cannot know its names: it relies on
 *   its key.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../../api/api-error';

export const LOOPBACK_HOSTS: readonly string[] = ['127.0.0.1', 'localhost', '::1'];

export function checkContentType(req: IncomingMessage): void {
  if (req.method !== 'POST') return;
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ApiError(415, 'invalid_request_error', 'unsupported_media_type', `the request body must be application/json (got ${type === '' ? 'no content type' : type})`);
  }
}

/** `allowed` null: any Host (a non-loopback bind). */
export function checkHost(req: IncomingMessage, allowed: readonly string[] | null): void {
  if (allowed === null) return;
  const host = hostName(req.headers.host ?? '');
  if (!allowed.includes(host)) throw new ApiError(403, 'invalid_request_error', 'host_not_allowed', `requests must be addressed to ${allowed.join(', ')} (got Host ${JSON.stringify(req.headers.host ?? '')})`);
}

/** The Host header's name, lowercase, without its port or IPv6 brackets. */
function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']'));
  return h.replace(/:\d+$/, '');
}
