/**
 * Tool results in the shapes the real tools return, so the micro model reads at inference what it read
 * in training: brave_search → {"query", "results": [{title, url, description, age}]}; wolfram_alpha →
 * the plain text of Wolfram|Alpha's LLM API (a fixed subset of its sections); code_interpreter →
 * {"stdout"/"stderr"/"result"/"error"} with empty fields omitted; any failure → {"error", ...}.
 */
import { FAILURE_TEXTS, type FailureKind, type ServiceName } from '../../src/tools/failure-texts';
import { ToolError } from '../../src/tools/tool';
import { errorText, timeoutError, valueText } from '../../src/tools/tool-result';
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

export type ToolName = 'brave_search' | 'wolfram_alpha' | 'code_interpreter' | 'custom';

/**
 * A failed call's ipython content, built the way the runtime builds it: the message from FAILURE_TEXTS
 * (src/tools/failure-texts.ts), wrapped as the loop wraps it (a ToolError from the proxy client, an Error
 * from the loop, the tool set's error object, the sandbox's result) and written by the loop's own
 * errorText / valueText / timeoutError. `message` is the text the answer may quote.
 */
export interface TrainedFailure {
  kind: FailureKind | 'pythonException';
  content: string;
  message: string;
  /** The user declined (or could not be asked): the answer says the tool was not run. */
  declined: boolean;
}

type FailureBuilder = { tools: readonly ToolName[]; weight: number; build(rng: Rng, tool: ToolName): { content: string; message: string } };

const SERVICES: readonly ToolName[] = ['brave_search', 'wolfram_alpha'];
const ALL: readonly ToolName[] = ['brave_search', 'wolfram_alpha', 'code_interpreter', 'custom'];
const service = (tool: ToolName): ServiceName => (tool === 'wolfram_alpha' ? 'wolfram_alpha' : 'brave_search');
const NETWORK_REASONS = ['ECONNREFUSED', 'ENOTFOUND', 'ECONNRESET', 'network error'];
const PROXY_REASONS = ['fetch failed', 'Failed to fetch', 'fetch failed (ECONNREFUSED)', 'NetworkError when attempting to fetch resource.'];
const toolName = (tool: ToolName, rng: Rng) => (tool === 'custom' ? rng.pick(['get_opening_hours', 'get_order_status', 'check_stock', 'get_exchange_rate']) : tool);
/** A proxy-client failure: ToolError(message, details) through the loop's errorText. */
const proxied = (message: string, details: Record<string, unknown>) => ({ content: errorText(new ToolError(message, details)), message });
const thrown = (message: string) => ({ content: errorText(new Error(message)), message });

/** Every failure kind the runtime can produce, and how the corpus draws it (Record: a new kind must be added here). */
export const TRAINED_FAILURES: Readonly<Record<FailureKind, FailureBuilder>> = {
  notConfigured: { tools: SERVICES, weight: 6, build: (_r, t) => proxied(FAILURE_TEXTS.notConfigured(service(t)), { setup: FAILURE_TEXTS.notConfiguredSetup(service(t)) }) },
  notConfiguredSetup: { tools: SERVICES, weight: 0, build: (_r, t) => proxied(FAILURE_TEXTS.notConfigured(service(t)), { setup: FAILURE_TEXTS.notConfiguredSetup(service(t)) }) },
  keyRejected: { tools: SERVICES, weight: 2, build: (r, t) => proxied(FAILURE_TEXTS.keyRejected(service(t)), { status: r.pick([401, 403]) }) },
  rateLimited: { tools: SERVICES, weight: 3, build: (_r, t) => proxied(FAILURE_TEXTS.rateLimited(service(t)), { status: 429 }) },
  upstreamFailed: { tools: SERVICES, weight: 2, build: (r, t) => { const status = r.pick([500, 502, 503]); return proxied(FAILURE_TEXTS.upstreamFailed(service(t), status), { status }); } },
  upstreamRejected: { tools: SERVICES, weight: 1, build: (r, t) => { const status = r.pick([400, 404, 422]); return proxied(FAILURE_TEXTS.upstreamRejected(service(t), status), { status }); } },
  wolframNotUnderstood: { tools: ['wolfram_alpha'], weight: 2, build: () => proxied(FAILURE_TEXTS.wolframNotUnderstood(), { status: 501 }) },
  upstreamTimeout: { tools: SERVICES, weight: 2, build: (r, t) => proxied(FAILURE_TEXTS.upstreamTimeout(service(t), r.pick([10_000, 5000, 2500])), { status: 504 }) },
  upstreamUnreachable: { tools: SERVICES, weight: 2, build: (r, t) => proxied(FAILURE_TEXTS.upstreamUnreachable(service(t), r.pick(NETWORK_REASONS)), { status: 502 }) },
  proxyUnreachable: { tools: SERVICES, weight: 2, build: (r, t) => proxied(FAILURE_TEXTS.proxyUnreachable(`/api/tools/${t}`, r.pick(PROXY_REASONS)), {}) },
  proxyMissing: { tools: SERVICES, weight: 1, build: (r, t) => { const status = r.pick([404, 405]); return proxied(FAILURE_TEXTS.proxyMissing(status, `/api/tools/${t}`), { status }); } },
  callTimeout: { tools: ALL, weight: 3, build: (r) => { const ms = r.pick([5000, 10_000, 11_000, 30_000]); return { content: timeoutError(ms), message: FAILURE_TEXTS.callTimeout(ms) }; } },
  declined: { tools: ALL, weight: 5, build: (r, t) => thrown(FAILURE_TEXTS.declined(toolName(t, r))) },
  noConfirmer: { tools: ALL, weight: 1, build: (r, t) => thrown(FAILURE_TEXTS.noConfirmer(toolName(t, r))) },
  unknownTool: { tools: ALL, weight: 1, build: (r, t) => { const m = FAILURE_TEXTS.unknownTool(toolName(t, r)); return { content: valueText({ error: m, available_tools: ['brave_search', 'wolfram_alpha'] }), message: m }; } },
  interpreterOff: { tools: ['code_interpreter'], weight: 1, build: () => { const m = FAILURE_TEXTS.interpreterOff(); return { content: valueText({ error: m, available_tools: ['brave_search', 'wolfram_alpha'] }), message: m }; } },
  unreadableCall: { tools: ALL, weight: 1, build: (r) => { const m = FAILURE_TEXTS.unreadableCall(r.pick(['malformed', 'the arguments are not valid JSON', 'unterminated string'])); return { content: valueText({ error: m }), message: m }; } },
  invalidArguments: { tools: ['custom'], weight: 1, build: (r, t) => { const m = FAILURE_TEXTS.invalidArguments(toolName(t, r), r.pick(['a required property is missing', 'must be a string'])); return { content: valueText({ error: m }), message: m }; } },
  runKilled: { tools: ['code_interpreter'], weight: 1, build: (r) => thrown(FAILURE_TEXTS.runKilled(r.pick(['reset', 'killed after a timeout']))) },
  stateLost: { tools: ['code_interpreter'], weight: 2, build: (r) => { const m = FAILURE_TEXTS.stateLost(r.pick(['aborted', 'the interpreter crashed'])); return { content: valueText({ error: m, state_lost: true }), message: m }; } },
  codeTimeout: { tools: ['code_interpreter'], weight: 2, build: (r) => { const m = FAILURE_TEXTS.codeTimeout(r.pick([10_000, 5000, 30_000])); return { content: valueText({ error: m, state_lost: true }), message: m }; } },
  leftoverWork: { tools: ['code_interpreter'], weight: 1, build: () => { const m = FAILURE_TEXTS.leftoverWork(); return { content: valueText({ stdout: '', note: m, state_lost: true }), message: m }; } },
  localMathCannot: { tools: ['wolfram_alpha'], weight: 2, build: () => { const m = FAILURE_TEXTS.localMathCannot(); return { content: m, message: m }; } },
};

/** Python's own exceptions, as the sandbox reports them (the traceback from the model's code, compiled as <exec>). */
const PYTHON_EXCEPTIONS = ['MemoryError', 'RecursionError: maximum recursion depth exceeded', 'OverflowError: integer string conversion too large', 'KeyboardInterrupt'];

/** A failure of `tool` drawn by weight among the kinds that apply to it (code: Python exceptions too). */
export function trainingFailure(rng: Rng, tool: ToolName): TrainedFailure {
  const kinds = (Object.keys(TRAINED_FAILURES) as FailureKind[]).filter((k) => TRAINED_FAILURES[k].weight > 0 && TRAINED_FAILURES[k].tools.includes(tool));
  const weights: Record<string, number> = Object.fromEntries(kinds.map((k) => [k, TRAINED_FAILURES[k].weight]));
  if (tool === 'code_interpreter') weights.pythonException = 4;
  const kind = rng.weighted(weights) as FailureKind | 'pythonException';
  if (kind === 'pythonException') {
    const last = rng.pick(PYTHON_EXCEPTIONS);
    const text = `Traceback (most recent call last):\n  File "<exec>", line ${rng.int(1, 3)}, in <module>\n${last}`;
    return { kind, content: valueText({ error: text }), message: last, declined: false };
  }
  const { content, message } = TRAINED_FAILURES[kind].build(rng, tool);
  return { kind, content, message, declined: kind === 'declined' || kind === 'noConfirmer' };
}
