/**
 * llama-server closes the connection after each streamed response; a pooled connection can be reused
 * before the client has seen that close, and the request then fails before any answer (Node's undici:
 * UND_ERR_SOCKET "other side closed", or a reset). No handler ran such a request, so it is sent once
 * more, on a fresh connection. (Browsers retry these themselves.) A refused connection, an abort or a
 * second failure is the caller's to handle.
 */
export function isStaleConnection(e: unknown): boolean {
  const code = (e as { cause?: { code?: unknown } } | null)?.cause?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}

export async function fetchOnFreshConnection(doFetch: typeof fetch, url: string, init: RequestInit): Promise<Response> {
  try {
    return await doFetch(url, init);
  } catch (e) {
    if (init.signal?.aborted || !isStaleConnection(e)) throw e;
    return doFetch(url, init);
  }
}
