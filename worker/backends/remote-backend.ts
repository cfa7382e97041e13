/**
 * The `remote` SamplingBackend: a vLLM or llama-server process samples; we send the whole prompt as
 * ids with every sampling setting (remote/completion-request.ts) and read the streamed ids back
 * (remote/completion-stream.ts). Works in Node and in a browser worker (fetch and streams only).
 *
 * Invariants: one request at a time per backend; every request's fetch is aborted when generate
 * returns or throws, so the server stops generating for it; an abort of the caller's signal resolves
 * with what arrived (the engine treats it as an abort); every failure is an EngineError naming the
 * server (src/engine/remote/server-errors.ts); a constraint travels in the server's own fields
 * (remote/constraint-fields.ts), and one the server refuses is `invalid_constraint`. The server's cache is its own: we only report what it says it reused.
 */
import { createParser } from 'eventsource-parser';
import { EngineError } from '../../src/engine/errors';
import type { SamplingBackend, SamplingOutcome, SamplingRequest } from './backend';
import { completionBody } from './remote/completion-request';
import { CompletionStream, type StreamReport } from './remote/completion-stream';
import { probeServer, type ServerInfo } from '../../src/engine/remote/probe-server';
import { endpoint, headers, type RemoteEngineConfig } from '../../src/engine/remote/remote-config';
import { httpError, unreachable } from '../../src/engine/remote/server-errors';
import { fetchOnFreshConnection } from './remote/stale-connection';

/** The outcome with what the server said about the prompt (promptTokens, evaluatedTokens) and the finish. */
export type RemoteOutcome = SamplingOutcome & StreamReport;

export interface RemoteBackend extends SamplingBackend {
  readonly server: ServerInfo;
  generate(request: SamplingRequest, onIds: (ids: number[]) => void, signal: AbortSignal): Promise<RemoteOutcome>;
}

/** Probes the server (so a wrong URL, key or model fails here, in plain words) and returns the backend. */
export async function createRemoteBackend(config: RemoteEngineConfig, signal?: AbortSignal): Promise<RemoteBackend> {
  const server = await probeServer(config, signal);
  // This project's serve wants the model named, and serves one.
  const model = config.model || (server.kind === 'llama-agent' ? server.models[0] : undefined);
  return new Remote({ ...config, kind: server.kind, ...(model ? { model } : {}) }, server);
}

class Remote implements RemoteBackend {
  readonly kind = 'sampling' as const;
  readonly device: string;
  readonly contextWindow?: number;
  readonly modelName?: string;
  private disposed = false;

  constructor(
    private readonly config: RemoteEngineConfig & Required<Pick<RemoteEngineConfig, 'kind'>>,
    readonly server: ServerInfo,
  ) {
    this.device = `${server.kind} at ${config.url}`;
    if (server.contextWindow !== null) this.contextWindow = server.contextWindow;
    // llama-server names its model by the file's path: the file name says enough.
    const name = config.model || server.models[0]?.split(/[\\/]/).pop();
    if (name) this.modelName = name;
  }

  async generate(request: SamplingRequest, onIds: (ids: number[]) => void, signal: AbortSignal): Promise<RemoteOutcome> {
    if (this.disposed) throw new EngineError('not_loaded', 'the remote engine was closed');
    const { url } = this.config;
    const constrained = request.constraint !== undefined;
    // Built first: a request this server cannot take (a constraint it has no field for) is refused unsent.
    const body = JSON.stringify(completionBody(request, this.config.kind, this.config.model));
    const stream = new CompletionStream(url, request.prompt, new Set(request.stopIds), request.maxTokens, constrained);
    const outcome = (): RemoteOutcome => stream.report();
    if (signal.aborted) return outcome();
    const cut = new AbortController();
    const both = AbortSignal.any([signal, cut.signal]);
    try {
      let res: Response;
      try {
        res = await fetchOnFreshConnection(this.config.fetch ?? fetch, endpoint(url, 'completions'), {
          method: 'POST',
          headers: headers(this.config, true),
          body,
          signal: both,
        });
      } catch (e) {
        if (signal.aborted) return outcome();
        throw unreachable(url, e, 'connect');
      }
      if (!res.ok) throw httpError(url, res.status, await res.text().catch(() => ''), constrained);
      if (!res.body) throw new EngineError('server_error', `the engine server at ${url} answered without a body`);
      const events: string[] = [];
      const parser = createParser({ onEvent: (event) => events.push(event.data) });
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (e) {
          if (signal.aborted) return outcome();
          throw unreachable(url, e, 'stream');
        }
        if (chunk.done) break;
        parser.feed(decoder.decode(chunk.value, { stream: true }));
        for (const data of events.splice(0)) {
          const { ids, overrun } = stream.accept(data);
          if (ids.length > 0) onIds(ids);
          if (overrun) return outcome();
        }
        if (stream.complete) break;
      }
      const last = stream.finish();
      if (last.length > 0) onIds(last);
      return outcome();
    } finally {
      // Closes the connection when we stopped early or failed: the server stops generating for it.
      cut.abort();
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
  }
}
