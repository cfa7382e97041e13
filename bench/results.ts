/**
 * results.json: one object per section name, each the section's last figures plus `ranAt`. Running
 * some sections replaces only theirs; every other section's entry is kept as it was.
 */
import type { SectionResult } from './section';

export type Results = Record<string, SectionResult>;

/** Parses a previous results.json; anything that is not an object of objects is an error (never silently dropped). */
export function parseResults(text: string | null): Results {
  if (text === null || text.trim() === '') return {};
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('results.json: expected an object keyed by section name');
  for (const [name, entry] of Object.entries(value)) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new Error(`results.json: "${name}" is not an object of figures`);
  }
  return value as Results;
}

/** The previous results with the fresh sections replaced; sections keep their first-seen order. */
export function mergeResults(previous: Results, fresh: Results): Results {
  return { ...previous, ...fresh };
}

/** The figures as an aligned two-column table of `section.key  value`. */
export function formatTable(results: Results): string {
  const rows: Array<[string, string]> = [];
  for (const [section, figures] of Object.entries(results)) {
    for (const [key, value] of Object.entries(figures)) rows.push([`${section}.${key}`, formatValue(value)]);
  }
  const width = Math.max(0, ...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n');
}

function formatValue(value: number | string): string {
  if (typeof value === 'string') return value;
  return Number.isInteger(value) ? value.toLocaleString('en-US') : String(value);
}
