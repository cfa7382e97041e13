/**
 * What a request must show before it is read, so a web page the user visits cannot drive a local
 * server through the browser:
 * - a POST body is `application/json`: a cross-site page can send `text/plain` or a form without a
 *   CORS preflight, but not JSON (the preflight gets no CORS answer here, so the browser stops);
 * - the Host header names one of the server's allowed hosts, on every bind (loopback's names, the bound
 *   address, the names the deployer lists): a DNS-rebinding page reaches the server under its own
 *   name, and is refused (403).
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

/** `allowed`: lowercase host names or IP literals, IPv6 without brackets. */
export function checkHost(req: IncomingMessage, allowed: readonly string[]): void {
  const host = hostName(req.headers.host ?? '');
  if (!allowed.includes(host)) throw new ApiError(403, 'invalid_request_error', 'host_not_allowed', `requests must be addressed to ${allowed.join(', ')} (got Host ${JSON.stringify(req.headers.host ?? '')})`);
}

/** The Host header's name, lowercase, without its port or IPv6 brackets. */
function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']'));
  return h.replace(/:\d+$/, '');
}
