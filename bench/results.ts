/**
 * results.json: one object per section name, each the section's last figures plus `ranAt`. Running
 * some sections replaces only theirs; every other section's entry is kept as it was.
 */
import * as v from 'valibot';
import { parseFirst, plainObject } from '../src/parse/fields';
import type { SectionResult } from './section';

export type Results = Record<string, SectionResult>;

const NOT_FIGURES = 'is not an object of figures (numbers, strings and objects of numbers)';
const figureSchema = v.union([v.number(), v.string(), v.pipe(plainObject<object>(NOT_FIGURES), v.record(v.string(), v.number(NOT_FIGURES)))], NOT_FIGURES);
const resultsSchema = v.pipe(
  plainObject<object>('expected an object keyed by section name'),
  v.record(v.string(), v.pipe(plainObject<object>(NOT_FIGURES), v.record(v.string(), figureSchema))),
);

/** Parses a previous results.json; anything that is not an object of figure objects is an error (never silently dropped). */
export function parseResults(text: string | null): Results {
  if (text === null || text.trim() === '') return {};
  const parsed = parseFirst(resultsSchema, JSON.parse(text));
  if (parsed.ok) return parsed.value;
  const [section] = parsed.issue.path;
  throw new Error(`results.json: ${section === undefined ? '' : `${JSON.stringify(section)} `}${parsed.issue.message}`);
}

/** The previous results with the fresh sections replaced; sections keep their first-seen order. */
export function mergeResults(previous: Results, fresh: Results): Results {
  return { ...previous, ...fresh };
}

/** The figures as an aligned two-column table of `section.key  value`. */
export function formatTable(results: Results): string {
  const rows: Array<[string, string]> = [];
  for (const [section, figures] of Object.entries(results)) {
    for (const [key, value] of Object.entries(figures)) {
      if (typeof value === 'object') for (const [part, v] of Object.entries(value)) rows.push([`${section}.${key}.${part}`, formatValue(v)]);
      else rows.push([`${section}.${key}`, formatValue(value)]);
    }
  }
  const width = Math.max(0, ...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n');
}

function formatValue(value: number | string): string {
  if (typeof value === 'string') return value;
  return Number.isInteger(value) ? value.toLocaleString('en-US') : String(value);
}
