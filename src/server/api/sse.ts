/**
 * Server-sent events as OpenAI streams them: one `data: <json>` event per chunk, `data: [DONE]` at
 * the end; a failure after the stream has started is one `data: {"error": ...}` event (OpenAI's clients
 * raise it as an APIError), then the end. Nothing is written once the client has gone.
 */
import type { ServerResponse } from 'node:http';
import type { ApiError } from '../../api/api-error';

export function startEvents(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
}

export function sendEvent(res: ServerResponse, data: unknown): void {
  if (!res.writableEnded && !res.destroyed) res.write(`data: ${JSON.stringify(data)}\n\n`);
}

export function endEvents(res: ServerResponse, failure?: ApiError): void {
  if (res.writableEnded || res.destroyed) return;
  if (failure) sendEvent(res, failure.toJSON());
  else res.write('data: [DONE]\n\n');
  res.end();
}
