/**
 * A tool call and its result as a card shows them: a title, the call's arguments as text (code as
 * code), and the result split into labelled sections (the code interpreter's stdout, stderr, value
 * and error apart; JSON pretty-printed; anything else verbatim). Pure; everything is text.
 */
import type { ToolCall } from '../format/types';

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
  text: string;
  /** Shown as an error (red). */
  error?: boolean;
}

export function callDisplay(call: ToolCall): CallDisplay {
  const args = call.arguments;
  if (call.kind === 'code') {
    const code = typeof args.code === 'string' ? args.code : '';
    return { name: 'code_interpreter', summary: firstLine(code), body: code, language: 'python' };
  }
  if (call.kind === 'invalid') {
    return { name: call.name || 'unreadable call', summary: 'a call that could not be read', body: `${String(args.error ?? '')}\n\n${String(args.text ?? '')}`.trim(), language: 'text' };
  }
  if (call.kind === 'builtin' && typeof args.query === 'string') {
    return { name: call.name, summary: JSON.stringify(args.query), body: args.query, language: 'text' };
  }
  const json = JSON.stringify(args, null, 2);
  return { name: call.name, summary: truncate(JSON.stringify(args), 80), body: json, language: 'json' };
}

/** The sections of a result (`content` is the ipython turn's text). */
export function resultSections(name: string, content: string, isError: boolean): ResultSection[] {
  const parsed = parseObject(content);
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

function parseObject(text: string): Record<string, unknown> | null {
  const t = text.trim();
  if (!t.startsWith('{')) return null;
  try {
    const v: unknown = JSON.parse(t);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return truncate(line.trim(), 80);
}

function truncate(text: string, n: number): string {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}
