/**
 * Tool results in the shapes the real tools return, so the micro model reads at inference what it read
 * in training: brave_search → {"query", "results": [{title, url, description, age}]}; wolfram_alpha →
 * the plain text of Wolfram|Alpha's LLM API (a fixed subset of its sections); code_interpreter →
 * {"stdout"/"stderr"/"result"/"error"} with empty fields omitted; any failure → {"error", ...}.
 */
import type { Rng } from './rng';

export interface SearchResult {
  title: string;
  url: string;
  description: string;
  /** Omitted in some results, as Brave omits it. */
  age?: string;
}

export interface SearchResponse {
  query: string;
  results: SearchResult[];
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** An `age` as Brave writes it ("3 days ago", "March 4, 2025"), absent one time in six. */
export function searchAge(rng: Rng): string | undefined {
  const r = rng.int(0, 5);
  if (r === 0) return undefined;
  if (r === 1) return `${rng.int(2, 23)} hours ago`;
  if (r === 2) return `${rng.int(2, 6)} days ago`;
  if (r === 3) return `${rng.int(2, 11)} months ago`;
  return `${rng.pick(MONTHS)} ${rng.int(1, 28)}, ${rng.int(2019, 2025)}`;
}

/** Lower-case words joined by `sep`, ASCII only: "new-york". */
export function slug(text: string, sep = '-'): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, sep).replace(new RegExp(`^\\${sep}|\\${sep}$`, 'g'), '');
}

/**
 * A search response of 1–5 results holding `answer` at a random position among `distractors`
 * (results about the same subject that do not hold the value).
 */
export function searchResponse(rng: Rng, query: string, answer: SearchResult, distractors: readonly SearchResult[]): SearchResponse {
  const n = rng.weighted({ '1': 35, '2': 33, '3': 20, '4': 8, '5': 4 });
  const others = rng.sample(distractors, Number(n) - 1);
  const at = rng.int(0, others.length);
  const results = [...others.slice(0, at), answer, ...others.slice(at)];
  return { query, results: results.map((r) => withAge(rng, r)) };
}

function withAge(rng: Rng, r: SearchResult): SearchResult {
  const age = searchAge(rng);
  return age === undefined ? { title: r.title, url: r.url, description: r.description } : { title: r.title, url: r.url, description: r.description, age };
}

/** Wolfram|Alpha's website link for a query, as the LLM API ends its answers. */
export function wolframUrl(query: string): string {
  return `https://www.wolframalpha.com/input?i=${encodeURIComponent(query).replace(/%20/g, '+')}`;
}

/**
 * Wolfram|Alpha LLM API text: `Query:` (quoted), an `Input:` or `Input interpretation:` section,
 * `Result:`, and (most of the time) the website link.
 */
export function wolframText(rng: Rng, query: string, input: { label: 'Input' | 'Input interpretation'; text: string }, result: string): string {
  const sections = [`Query:\n"${query}"`, `${input.label}:\n${input.text}`, `Result:\n${result}`];
  if (rng.chance(0.5)) sections.push(`Wolfram|Alpha website result for "${query}":\n${wolframUrl(query)}`);
  return sections.join('\n\n');
}

/** The code interpreter's result with empty fields omitted. */
export function codeResult(stdout: string): { stdout: string } {
  return { stdout };
}

export type ToolName = 'brave_search' | 'wolfram_alpha' | 'code_interpreter';

/** Errors as data, as the loop writes a failed tool's result. */
export const TOOL_ERRORS: Readonly<Record<ToolName, ReadonlyArray<Record<string, string | number>>>> = {
  brave_search: [
    { error: 'timeout after 5s' },
    { error: 'HTTP 429: rate limit exceeded', status: 429 },
    { error: 'BRAVE_API_KEY is not set' },
    { error: 'network error: fetch failed' },
    { error: 'HTTP 503: service unavailable', status: 503 },
  ],
  wolfram_alpha: [
    { error: 'timeout after 5s' },
    { error: 'Wolfram|Alpha did not understand your input', status: 501 },
    { error: 'WOLFRAM_APP_ID is not set' },
    { error: 'network error: fetch failed' },
  ],
  code_interpreter: [
    { error: 'timeout after 10s' },
    { error: 'MemoryError' },
    { error: 'the interpreter crashed and was restarted' },
  ],
};
