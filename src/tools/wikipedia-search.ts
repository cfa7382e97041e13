/**
 * Wikipedia's search API as a keyless stand-in for Brave (used by `brave_search` only when the proxy
 * says it has no key, and only when the host turned the fallback on). CORS-enabled with `origin=*`, so
 * the browser calls it directly.
 *
 * Invariant: results carry `source: WIKIPEDIA_FALLBACK_SOURCE`, so the model (and the user reading the
 * result) can tell they are encyclopedia hits, not a web search.
 */
import { stripHtml } from './html-text';
import type { SearchResultItem, SearchResults } from './search-results';
import { ToolError } from './tool';

export const DEFAULT_WIKIPEDIA_API = 'https://en.wikipedia.org/w/api.php';
export const WIKIPEDIA_FALLBACK_SOURCE = 'wikipedia (keyless fallback)';

export interface WikipediaSearchOptions {
  /** The `api.php` endpoint; article URLs are built on its origin (`/wiki/Title`). */
  apiUrl?: string;
  maxResults: number;
  signal: AbortSignal;
  fetch?: typeof fetch;
}

interface WikipediaHit {
  title?: unknown;
  snippet?: unknown;
}

export async function searchWikipedia(query: string, options: WikipediaSearchOptions): Promise<SearchResults> {
  const api = options.apiUrl ?? DEFAULT_WIKIPEDIA_API;
  const params = new URLSearchParams({
    action: 'query',
    list: 'search',
    srsearch: query,
    format: 'json',
    origin: '*',
    srlimit: String(options.maxResults),
  });
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  let body: unknown;
  try {
    const response = await doFetch(`${api}?${params.toString()}`, { signal: options.signal });
    if (!response.ok) throw new ToolError(`the Wikipedia search failed (HTTP ${response.status})`, { status: response.status });
    body = await response.json();
  } catch (cause) {
    options.signal.throwIfAborted();
    if (cause instanceof ToolError) throw cause;
    throw new ToolError(`the Wikipedia search failed: ${cause instanceof Error ? cause.message : 'network error'}`);
  }
  return shapeWikipediaResults(query, body, options.maxResults, api);
}

/** `{query, source, results}` from the API's `query.search` hits; an API `error` becomes a ToolError. */
export function shapeWikipediaResults(query: string, body: unknown, maxResults: number, apiUrl: string = DEFAULT_WIKIPEDIA_API): SearchResults {
  const root = (body ?? {}) as { error?: { info?: unknown }; query?: { search?: unknown } };
  if (root.error !== undefined) {
    const info = typeof root.error.info === 'string' ? root.error.info : 'unknown error';
    throw new ToolError(`the Wikipedia search failed: ${info}`);
  }
  const hits = Array.isArray(root.query?.search) ? (root.query.search as WikipediaHit[]) : [];
  const results: SearchResultItem[] = [];
  for (const hit of hits) {
    if (results.length >= maxResults) break;
    if (typeof hit?.title !== 'string') continue;
    results.push({
      title: hit.title,
      url: articleUrl(hit.title, apiUrl),
      description: typeof hit.snippet === 'string' ? stripHtml(hit.snippet) : '',
    });
  }
  return { query, source: WIKIPEDIA_FALLBACK_SOURCE, results };
}

/** `https://en.wikipedia.org/wiki/C%23_(programming_language)`: spaces as underscores, only URL-breaking characters escaped. */
export function articleUrl(title: string, apiUrl: string = DEFAULT_WIKIPEDIA_API): string {
  const path = title.replace(/ /g, '_').replace(/[%?#"<>\s\\^`{|}]/g, (c) => encodeURIComponent(c));
  return `${new URL(apiUrl).origin}/wiki/${path}`;
}
