/**
 * A remote server's failures as EngineErrors in plain words, each naming the server: unreachable
 * (refused, DNS, dropped mid-stream), the API key refused, the prompt too long for its context, a
 * constraint it refused (a grammar or schema it cannot parse or convert: `invalid_constraint`), any
 * other 4xx/5xx with the server's own message. Pure except for reading an error body.
 */
import { EngineError } from '../errors';

/** A failed fetch() or body read (Node's undici and browsers both throw TypeError) → server_unreachable. */
export function unreachable(url: string, e: unknown, during: 'connect' | 'stream'): EngineError {
  const cause = (e as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : '';
  const why = code === 'ECONNREFUSED' ? 'connection refused: is it running?'
    : code === 'ENOTFOUND' ? 'no such host'
    : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' ? 'the connection was reset'
    : e instanceof Error ? e.message : String(e);
  return during === 'connect'
    ? new EngineError('server_unreachable', `cannot reach the engine server at ${url} (${why})`)
    : new EngineError('server_unreachable', `the connection to the engine server at ${url} was lost during generation (${why})`);
}

/** What an error body says, from either server's JSON shape or plain text. */
export function serverMessage(body: string): { message: string; type: string } {
  try {
    const json = JSON.parse(body) as { error?: unknown; message?: unknown; type?: unknown; detail?: unknown };
    const err = (typeof json.error === 'object' && json.error !== null ? json.error : json) as { message?: unknown; type?: unknown };
    const message = typeof err.message === 'string' ? err.message : typeof json.error === 'string' ? json.error : typeof json.detail === 'string' ? json.detail : body;
    return { message, type: typeof err.type === 'string' ? err.type : '' };
  } catch {
    return { message: body.trim().slice(0, 500) || '(empty body)', type: '' };
  }
}

const CONTEXT_TOO_LONG = /exceed_context_size|maximum context length|exceeds the available context size|context length|too long for the context/i;

/** What a 400 says when the request's grammar or schema is what the server refused (llama-server's and vLLM's wording). */
const CONSTRAINT_REFUSED = /grammar|schema|structured.?output/i;

/**
 * A non-2xx response (or an error event inside a stream) → the matching EngineError. `constrained`:
 * the request carried a constraint, so a 400 about a grammar or schema is that constraint's refusal.
 */
export function httpError(url: string, status: number, body: string, constrained = false): EngineError {
  const { message, type } = serverMessage(body);
  if (CONTEXT_TOO_LONG.test(type) || (status === 400 && CONTEXT_TOO_LONG.test(message))) {
    return new EngineError('context_overflow', `the prompt does not fit the context of the engine server at ${url}: ${message}`);
  }
  if (constrained && status === 400 && CONSTRAINT_REFUSED.test(message)) {
    return new EngineError('invalid_constraint', `the engine server at ${url} refused the constraint: ${message}`);
  }
  if (status === 401 || status === 403) {
    return new EngineError('server_error', `the engine server at ${url} refused the API key (${status}): ${message}`);
  }
  if (status === 404) {
    return new EngineError('server_error', `the engine server at ${url} has no such model or endpoint (404): ${message}`);
  }
  if (status === 502 || status === 504) {
    // A gateway in front of the server (our /api/engine/, nginx) could not reach it.
    return new EngineError('server_unreachable', `the engine server behind ${url} cannot be reached (${status}): ${message}`);
  }
  if (status === 503) {
    return new EngineError('server_error', `the engine server at ${url} is not ready (503, still loading its model?): ${message}`);
  }
  const side = status >= 500 ? 'failed' : 'rejected the request';
  return new EngineError('server_error', `the engine server at ${url} ${side} (${status}): ${message}`);
}
