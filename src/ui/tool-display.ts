/**
 * A tool call and its result as a card shows them: a title, the call's arguments as text (code as
 * code), and the result split into labelled sections (the code interpreter's stdout, stderr, value
 * and error apart; search results as titled sources with their host; Wolfram|Alpha's answer as its
 * pods; JSON pretty-printed; anything else verbatim). Pure; everything is text (a source's link is
 * http(s) only).
 */
import type { ToolCall } from '../format/types';
import { parseObject } from './tool-outcome';

export interface CallDisplay {
  /** The tool's name, e.g. `brave_search`, `code_interpreter`, `get_weather`. */
  name: string;
  /** One line for the collapsed card, e.g. `"Reykjavik population"`. */
  summary: string;
  /** The full call: code, the query, or pretty JSON arguments. */
  body: string;
  /** `python` for code, `json` for arguments, `text` otherwise. */
  language: 'python' | 'json' | 'text';
}

export interface ResultSection {
  label: string;
  /** The section as plain text (what is shown when there is no richer form). */
  text: string;
  /** Shown as an error (red). */
  error?: boolean;
  /** Search results, shown as links. */
  sources?: Source[];
  /** Wolfram|Alpha's answer, one titled block per pod. */
  pods?: Pod[];
}

export interface Source {
  title: string;
  /** An http(s) URL, or null when the result's URL was anything else (then shown as text only). */
  url: string | null;
  /** The URL's host without "www.", e.g. `en.wikipedia.org`. */
  host: string;
  description: string;
  age?: string;
}

export interface Pod {
  title: string;
  text: string;
}

export function callDisplay(call: ToolCall): CallDisplay {
  if (call.kind === 'code') {
    const { code } = call.arguments;
    return { name: 'code_interpreter', summary: firstLine(code), body: code, language: 'python' };
  }
  if (call.kind === 'invalid') {
    const { error, text } = call.arguments;
    return { name: call.name || 'unreadable call', summary: 'a call that could not be read', body: `${error}\n\n${text}`.trim(), language: 'text' };
  }
  const args = call.arguments;
  if (call.kind === 'builtin' && typeof args.query === 'string') {
    return { name: call.name, summary: JSON.stringify(args.query), body: args.query, language: 'text' };
  }
  const json = JSON.stringify(args, null, 2);
  return { name: call.name, summary: truncate(JSON.stringify(args), 80), body: json, language: 'json' };
}

/** The sections of a result (`content` is the ipython turn's text). */
export function resultSections(name: string, content: string, isError: boolean, source?: string): ResultSection[] {
  const parsed = parseObject(content);
  if (name === 'brave_search' && parsed && Array.isArray(parsed.results)) {
    const sources = parsed.results.flatMap((r) => sourceOf(r));
    const note: ResultSection[] = typeof parsed.source === 'string' ? [{ label: 'note', text: `results from ${parsed.source}` }] : [];
    if (sources.length === parsed.results.length) {
      return [...note, { label: sources.length === 1 ? '1 source' : `${sources.length} sources`, text: JSON.stringify(parsed.results, null, 2), sources }];
    }
  }
  if (name === 'wolfram_alpha' && !parsed && !isError) {
    const pods = wolframPods(content);
    if (pods.length > 0) return [{ label: source ?? 'Wolfram|Alpha', text: content, pods }];
  }
  if (parsed && name === 'code_interpreter') {
    const out: ResultSection[] = [];
    const field = (key: string, label: string, error = false) => {
      const v = parsed[key];
      if (typeof v === 'string' && v !== '') out.push({ label, text: v, ...(error ? { error } : {}) });
    };
    field('stdout', 'stdout');
    field('stderr', 'stderr');
    field('result', 'value');
    field('error', 'error', true);
    field('note', 'note');
    if (parsed.state_lost === true) out.push({ label: 'note', text: 'the interpreter was restarted: earlier variables are gone' });
    if (out.length > 0) return out;
  }
  if (parsed && typeof parsed.error === 'string') {
    const { error, ...rest } = parsed;
    const out: ResultSection[] = [{ label: 'error', text: error, error: true }];
    if (Object.keys(rest).length > 0) out.push({ label: 'details', text: JSON.stringify(rest, null, 2) });
    return out;
  }
  if (parsed) return [{ label: 'result', text: JSON.stringify(parsed, null, 2), ...(isError ? { error: true } : {}) }];
  return [{ label: 'result', text: content, ...(isError ? { error: true } : {}) }];
}

function sourceOf(value: unknown): Source[] {
  if (typeof value !== 'object' || value === null) return [];
  const r = value as Record<string, unknown>;
  if (typeof r.title !== 'string' || typeof r.url !== 'string') return [];
  let url: URL | null = null;
  try {
    url = new URL(r.url);
  } catch {
    url = null;
  }
  const web = url !== null && (url.protocol === 'https:' || url.protocol === 'http:');
  return [
    {
      title: r.title,
      url: web ? url!.href : null,
      host: web ? url!.hostname.replace(/^www\./, '') : r.url,
      description: typeof r.description === 'string' ? r.description : '',
      ...(typeof r.age === 'string' ? { age: r.age } : {}),
    },
  ];
}

/**
 * Wolfram|Alpha's LLM API answer ("Query:\n…\n\nResult:\n…"): blocks separated by a blank line whose
 * first line is a title ending in ":". Empty when the text has no such block.
 */
export function wolframPods(text: string): Pod[] {
  const pods: Pod[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.trim().split('\n');
    const head = lines[0]?.trim() ?? '';
    if (!head.endsWith(':') || lines.length < 2) continue;
    pods.push({ title: head.slice(0, -1), text: lines.slice(1).join('\n').trim() });
  }
  return pods;
}

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return truncate(line.trim(), 80);
}

function truncate(text: string, n: number): string {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}
