/**
 * What a remote engine server is and serves, from `GET /v1/models` (both vLLM and llama-server answer
 * it): its kind (`owned_by`: "vllm", "llamacpp"), the model names, and the context length when it says
 * (vLLM's `max_model_len`, llama-server's `meta.n_ctx`). Also the page's "test connection".
 */
import { EngineError } from '../errors';
import { SERVED_BY } from '../served-by';
import { endpoint, headers, type RemoteEngineConfig, type ServerKind } from './remote-config';
import { httpError, unreachable } from './server-errors';

export interface ServerInfo {
  kind: ServerKind;
  models: string[];
  /** Tokens of context the server gives a request; null when it does not say. */
  contextWindow: number | null;
}

interface ModelList {
  data?: Array<{ id?: unknown; owned_by?: unknown; max_model_len?: unknown; meta?: { n_ctx?: unknown } | null }>;
}

export async function probeServer(config: RemoteEngineConfig, signal?: AbortSignal): Promise<ServerInfo> {
  const url = endpoint(config.url, 'models');
  const doFetch = config.fetch ?? fetch;
  let res: Response;
  try {
    res = await doFetch(url, { headers: headers(config, true), ...(signal ? { signal } : {}) });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw unreachable(config.url, e, 'connect');
  }
  const body = await res.text().catch(() => '');
  if (!res.ok) throw httpError(config.url, res.status, body);
  let list: ModelList;
  try {
    list = JSON.parse(body) as ModelList;
  } catch {
    throw new EngineError('server_error', `${url} did not answer with JSON: is ${config.url} an OpenAI-compatible server?`);
  }
  const data = Array.isArray(list.data) ? list.data : [];
  const owners = new Set(data.map((m) => m.owned_by));
  const kind: ServerKind = config.kind ?? (owners.has('llamacpp') ? 'llama.cpp' : owners.has('vllm') ? 'vllm' : owners.has(SERVED_BY) ? 'llama-agent' : 'openai-compatible');
  const models = data.map((m) => m.id).filter((id): id is string => typeof id === 'string');
  const first = data[0];
  const ctx = first?.max_model_len ?? first?.meta?.n_ctx;
  if (config.model && kind !== 'llama.cpp' && models.length > 0 && !models.includes(config.model)) {
    throw new EngineError('unknown_model', `the engine server at ${config.url} serves ${models.join(', ')}, not ${config.model}`);
  }
  return { kind, models, contextWindow: Number.isInteger(ctx) ? (ctx as number) : null };
}
