/**
 * The browser side of the tool proxy (src/server/tool-proxy.ts): one GET, its failures turned into
 * ToolErrors the model can read. Shared by `brave_search` and `wolfram_alpha`.
 *
 * Invariants: the context's signal is passed to fetch and an abort is rethrown as the signal's own
 * reason (the loop tells a cancel from a timeout by it), never wrapped in a ToolError; every other
 * failure is a ToolError whose message says what happened (the proxy's own words when it sent JSON).
 */
import { FAILURE_TEXTS } from './failure-texts';
import { ToolError } from './tool';

/** Same-origin default; the widget passes an absolute URL. */
export const DEFAULT_PROXY_BASE = '/api/tools/';

export interface ProxyClientOptions {
  /** Base URL of the endpoints, e.g. `/api/tools/` or `https://host/api/tools/`. */
  proxyBase?: string;
  /** The fetch to use (tests, or a host that wraps fetch). Default the global one. */
  fetch?: typeof fetch;
}

export type ProxyResult =
  | { ok: true; text: string }
  /**
   * `notConfigured`: the proxy said the key is missing (503 with a `setup` hint). `noProxy`: nothing
   * that speaks the proxy's protocol answered (unreachable, or a static host's 404 page).
   */
  | { ok: false; error: ToolError; notConfigured: boolean; noProxy: boolean };

interface ProxyErrorBody {
  error?: unknown;
  setup?: unknown;
  upstream_status?: unknown;
  detail?: unknown;
}

export function proxyUrl(base: string, endpoint: string, params: Record<string, string>): string {
  const slash = base.endsWith('/') ? base : `${base}/`;
  return `${slash}${endpoint}?${new URLSearchParams(params).toString()}`;
}

export async function callToolProxy(
  endpoint: string,
  params: Record<string, string>,
  signal: AbortSignal,
  options: ProxyClientOptions = {},
): Promise<ProxyResult> {
  const url = proxyUrl(options.proxyBase ?? DEFAULT_PROXY_BASE, endpoint, params);
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  let response: Response;
  let text: string;
  try {
    response = await doFetch(url, { signal, headers: { accept: 'application/json, text/plain' } });
    text = await response.text();
  } catch (cause) {
    signal.throwIfAborted();
    return {
      ok: false,
      notConfigured: false,
      noProxy: true,
      error: new ToolError(FAILURE_TEXTS.proxyUnreachable(url.split('?')[0]!, reason(cause))),
    };
  }
  if (response.ok) return { ok: true, text };

  const body = parseErrorBody(text);
  if (body === undefined || typeof body.error !== 'string') {
    return {
      ok: false,
      notConfigured: false,
      noProxy: true,
      error: new ToolError(FAILURE_TEXTS.proxyMissing(response.status, url.split('?')[0]!), { status: response.status }),
    };
  }
  const notConfigured = response.status === 503 && typeof body.setup === 'string';
  const details: Record<string, unknown> = {};
  if (notConfigured) details.setup = body.setup;
  else details.status = typeof body.upstream_status === 'number' ? body.upstream_status : response.status;
  if (typeof body.detail === 'string') details.detail = body.detail;
  return { ok: false, notConfigured, noProxy: false, error: new ToolError(body.error, details) };
}

function parseErrorBody(text: string): ProxyErrorBody | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as ProxyErrorBody) : undefined;
  } catch {
    return undefined;
  }
}

function reason(cause: unknown): string {
  if (!(cause instanceof Error) || !cause.message) return 'network error';
  const code = (cause.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? `${cause.message} (${code})` : cause.message;
}
