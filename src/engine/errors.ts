import type { SerializedError } from './contract';

/** Stable codes of engine failures: the UI keys its plain-words explanations on them. */
export type EngineErrorCode =
  | 'not_loaded'
  | 'unknown_model'
  | 'load_failed'
  | 'context_overflow'
  | 'invalid_request'
  /** A constraint that does not compile or admits no reply: refused before anything is generated. */
  | 'invalid_constraint'
  | 'webgpu_unavailable'
  | 'shader_f16_unsupported'
  | 'insufficient_memory'
  | 'device_lost'
  | 'worker_failed'
  | 'tool_mode_unsupported'
  /** A remote engine server (vLLM, llama-server) cannot be reached or its connection was lost. */
  | 'server_unreachable'
  /** A remote engine server answered with an error, or with something this client cannot use. */
  | 'server_error'
  | 'internal';

/** A typed engine failure; survives the worker boundary with its name, code and message. */
export class EngineError extends Error {
  override readonly name = 'EngineError';
  constructor(
    readonly code: EngineErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The error an abort produces everywhere: `name === 'AbortError'`. */
export function abortError(message = 'The operation was aborted.'): Error {
  return new DOMException(message, 'AbortError');
}

export function isAbortError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'AbortError';
}

/**
 * Any thrown value → the data that crosses postMessage. A format error keeps its own code
 * (`turn_order`, `ids_mismatch`, …) under the name FormatError; unknown errors become `internal`.
 */
export function serializeError(e: unknown): SerializedError {
  if (e instanceof EngineError) return { name: e.name, code: e.code, message: e.message };
  if (isAbortError(e)) return { name: 'AbortError', code: 'aborted', message: (e as Error).message };
  const named = e as { name?: unknown; code?: unknown; message?: unknown };
  if (named?.name === 'FormatError' && typeof named.code === 'string') {
    return { name: 'FormatError', code: named.code, message: String(named.message) };
  }
  if (e instanceof RangeError) return { name: 'EngineError', code: 'invalid_request', message: e.message };
  const message = e instanceof Error ? e.message : String(e);
  return { name: 'EngineError', code: 'internal', message };
}

/** Rebuilds the thrown value on the receiving side (a format error as an Error named FormatError, with its code). */
export function deserializeError(s: SerializedError): Error {
  if (s.name === 'AbortError') return abortError(s.message);
  if (s.name === 'FormatError') return Object.assign(new Error(s.message), { name: 'FormatError', code: s.code });
  return new EngineError(s.code as EngineErrorCode, s.message);
}
