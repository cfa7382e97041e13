/**
 * How a remote engine server is addressed: a base URL (with or without a trailing `/v1`; relative URLs
 * such as `/api/engine/` resolve against the page), the model name it serves, and an optional API key
 * (in a browser the key stays on the dev/preview server, which forwards `/api/engine/`).
 */

/**
 * Which server speaks: it decides how a ban is written (JSON has no -Infinity) and which fields are
 * sent. `llama-agent` is this project's own `serve` (an engine server in front of an engine server).
 */
export type ServerKind = 'llama.cpp' | 'vllm' | 'llama-agent' | 'openai-compatible';

export interface RemoteEngineConfig {
  url: string;
  /** The served model's name; llama-server accepts any, vLLM needs the one it serves. Empty: omitted. */
  model?: string;
  apiKey?: string;
  /** Known in advance, or found by probeServer from `/v1/models`' `owned_by`. */
  kind?: ServerKind;
  /** Injected for tests; defaults to the global fetch. */
  fetch?: typeof fetch;
}

/** `${base}/v1/${path}` whether or not `url` already ends in `/v1`. */
export function endpoint(url: string, path: string): string {
  const base = url.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${base}/v1/${path}`;
}

export function headers(config: RemoteEngineConfig, json: boolean): Record<string, string> {
  const h: Record<string, string> = { accept: json ? 'application/json' : 'text/event-stream' };
  if (json) h['content-type'] = 'application/json';
  if (config.apiKey) h.authorization = `Bearer ${config.apiKey}`;
  return h;
}
