/**
 * Errors of the standard API surfaces, in OpenAI's error shape: an HTTP status, a `type`, a stable
 * `code` and the request field at fault (`param`). The in-page surface throws them; the server writes
 * them as `{"error": {message, type, param, code}}` with that status.
 */
import { EngineError } from '../engine/errors';

export type ApiErrorType = 'invalid_request_error' | 'authentication_error' | 'not_found_error' | 'server_error' | 'service_unavailable';

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly type: ApiErrorType,
    readonly code: string,
    message: string,
    /** The request field at fault, as a path (`messages[2].tool_call_id`), or null. */
    readonly param: string | null = null,
  ) {
    super(message);
  }

  /** The body OpenAI's clients read: `{"error": {...}}`. */
  toJSON(): { error: { message: string; type: ApiErrorType; param: string | null; code: string } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** A bad value in the request: 400, naming the field. */
export function invalidField(param: string, message: string): ApiError {
  return new ApiError(400, 'invalid_request_error', 'invalid_value', `${param}: ${message}`, param);
}

/** A field this surface does not support (or not with that value): 400, naming it. Never ignored. */
export function unsupportedField(param: string, why: string): ApiError {
  return new ApiError(400, 'invalid_request_error', 'unsupported_parameter', `${param} is not supported: ${why}`, param);
}

/** The request names a model that is not the one loaded: 404, as OpenAI answers. */
export function unknownModel(requested: string, loaded: string | null): ApiError {
  const which = loaded ? `the loaded model is "${loaded}"` : 'no model is loaded';
  return new ApiError(404, 'not_found_error', 'model_not_found', `The model "${requested}" does not exist here: ${which}`, 'model');
}

/**
 * Any failure of a request → an ApiError: format errors (turn order, ids) and bad engine requests are
 * the caller's (400), a prompt that leaves no room is `context_length_exceeded` (400), no model is
 * 503, everything else 500. Callers handle an abort before (it is the caller's own, not a failure).
 */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  const named = e as { name?: unknown; code?: unknown; message?: unknown };
  const message = e instanceof Error ? e.message : String(e);
  if (named?.name === 'FormatError' && typeof named.code === 'string') {
    return new ApiError(400, 'invalid_request_error', named.code, message, 'messages');
  }
  if (e instanceof RangeError) return new ApiError(400, 'invalid_request_error', 'invalid_value', message);
  if (e instanceof EngineError) {
    if (e.code === 'context_overflow') return new ApiError(400, 'invalid_request_error', 'context_length_exceeded', message, 'messages');
    if (e.code === 'invalid_request') return new ApiError(400, 'invalid_request_error', 'invalid_value', message);
    if (e.code === 'invalid_constraint') return new ApiError(400, 'invalid_request_error', 'invalid_constraint', message);
    if (e.code === 'not_loaded') return new ApiError(503, 'service_unavailable', 'not_loaded', message);
    return new ApiError(500, 'server_error', e.code, message);
  }
  return new ApiError(500, 'server_error', 'internal', message);
}
