/**
 * The built-in `brave_search` tool: the model's query goes to the same-origin proxy (which holds the
 * key), and Brave's large answer is cut down to `{"query": q, "results": [{title, url, description,
 * age}]}`, the top N (default 5), snippet HTML stripped.
 *
 * Invariants: only the fields above reach the model (Brave's profiles, thumbnails, extra snippets...
 * are dropped); with a local index
 * (provider `local`, or `auto` when the proxy has no key or there is none: tool-provider.ts,
 * proxy-services.ts) they come from that index, labeled `"source": "local index"`, and nothing leaves
 * the device — the query is not sent to the proxy either; any other failure
 * is a ToolError (an abort is rethrown as is).
 */
import { stripHtml } from './html-text';
import { callToolProxy, type ProxyClientOptions } from './proxy-client';
import { proxyServicesOnce, queryDestination, type ServicesOption } from './proxy-services';
import { queryArgument, queryParameters } from './query-argument';
import { clampResultCount, type SearchResultItem, type SearchResults } from './search-results';
import type { LocalSearchIndex } from './local-search';
import { ToolError, type Tool } from './tool';
import { answersLocally, type ToolProvider } from './tool-provider';

export interface BraveSearchOptions extends ProxyClientOptions, ServicesOption {
  /** Results handed to the model, 1..20. Default 5. */
  maxResults?: number;
  /**
   * Ask the user before each search. Default true: the query leaves the machine for a third party
   * (FORMAT.md: tools that reach outside wait for confirmation). The UI offers "always allow".
   */
  needsConfirmation?: boolean;
  /**
   * How Brave's answer is shaped for the model. Default shapeBraveResults (compact top-N JSON);
   * a host that prompts with another result layout passes its own.
   */
  shape?: (query: string, shaped: SearchResults) => unknown;
  /** The index that answers on this device (loaded on first use). */
  localIndex?: () => Promise<LocalSearchIndex>;
  /** Default `auto` with a local index, else `service`. `local` never asks (nothing leaves the device). */
  provider?: ToolProvider;
}

export function braveSearchTool(options: BraveSearchOptions = {}): Tool {
  const maxResults = clampResultCount(options.maxResults);
  const provider = options.localIndex ? (options.provider ?? 'auto') : 'service';
  const searchLocally = async (query: string) => (await options.localIndex!()).search(query, maxResults);
  const services = options.services ?? proxyServicesOnce(options.proxyBase, options.fetch);
  const destination = (signal: AbortSignal) => queryDestination('brave_search', provider, () => services(signal));
  return {
    name: 'brave_search',
    description:
      provider === 'local'
        ? 'Search the documents on this device (a local index) and return the top results: title, address, snippet.'
        : 'Search the web (Brave Search) and return the top results: title, URL, snippet and age.',
    parameters: queryParameters('What to search the web for.'),
    needsConfirmation: provider === 'local' ? false : (options.needsConfirmation ?? true),
    destination,
    async execute(args, { signal }) {
      const query = queryArgument(args, 'brave_search');
      if (provider === 'local' || (provider === 'auto' && (await destination(signal)).onDevice)) return searchLocally(query);
      const answer = await callToolProxy('brave_search', { q: query, count: String(maxResults) }, signal, options);
      if (answer.ok) {
        const shaped = shapeBraveResults(query, parseJson(answer.text), maxResults);
        return options.shape ? options.shape(query, shaped) : shaped;
      }
      if (answersLocally(provider, answer)) return searchLocally(query);
      throw answer.error;
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ToolError('Brave Search sent an answer that is not JSON');
  }
}

interface BraveWebResult {
  title?: unknown;
  url?: unknown;
  description?: unknown;
  age?: unknown;
}

/**
 * Brave's WebSearchApiResponse → `{query, results}`: `web.results` in order, the first `maxResults`
 * with a string url, title and description as plain text, `age` only when Brave gave one.
 */
export function shapeBraveResults(query: string, body: unknown, maxResults: number): SearchResults {
  const web = (body as { web?: { results?: unknown } } | null | undefined)?.web;
  const raw = Array.isArray(web?.results) ? (web.results as BraveWebResult[]) : [];
  const results: SearchResultItem[] = [];
  for (const r of raw) {
    if (results.length >= maxResults) break;
    if (typeof r?.url !== 'string') continue;
    const item: SearchResultItem = {
      title: typeof r.title === 'string' ? stripHtml(r.title) : '',
      url: r.url,
      description: typeof r.description === 'string' ? stripHtml(r.description) : '',
    };
    if (typeof r.age === 'string' && r.age.trim() !== '') item.age = r.age.trim();
    results.push(item);
  }
  return { query, results };
}
