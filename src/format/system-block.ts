import type { RenderOptions } from './types';

const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
];

export const DEFAULT_KNOWLEDGE_CUTOFF = 'December 2023';

/** "%d %B %Y": "11 August 2026". An ISO "YYYY-MM-DD" is reformatted; any other string is kept as given. */
export function formatDate(date: string | Date): string {
  if (date instanceof Date) {
    if (Number.isNaN(date.getTime())) throw new RangeError('invalid Date');
    return `${String(date.getDate()).padStart(2, '0')} ${MONTHS[date.getMonth()]} ${date.getFullYear()}`;
  }
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!iso) return date;
  const month = MONTHS[Number(iso[2]) - 1];
  if (!month || Number(iso[3]) < 1 || Number(iso[3]) > 31) throw new RangeError(`invalid date: ${date}`);
  return `${iso[3]} ${month} ${iso[1]}`;
}

/** True when any option is given; an empty list counts as not given. */
export function hasSystemOptions(options: RenderOptions): boolean {
  return (
    (options.builtinTools?.length ?? 0) > 0 ||
    (options.tools?.length ?? 0) > 0 ||
    options.date !== undefined ||
    options.knowledgeCutoff !== undefined
  );
}

/**
 * The system content built from options (shared/FORMAT.md "The system block"), followed by the
 * caller's own system message after a blank line. Only meaningful when hasSystemOptions().
 */
export function systemBlock(options: RenderOptions, callerSystem?: string, today: () => Date = () => new Date()): string {
  const builtin = options.builtinTools ?? [];
  const anyTool = builtin.length > 0 || (options.tools?.length ?? 0) > 0;
  const listed = builtin.filter((t) => t !== 'code_interpreter');
  const lines: string[] = [];
  if (anyTool) lines.push('Environment: ipython');
  if (listed.length > 0) lines.push(`Tools: ${listed.join(', ')}`);
  if (lines.length > 0) lines.push('');
  lines.push(`Cutting Knowledge Date: ${options.knowledgeCutoff ?? DEFAULT_KNOWLEDGE_CUTOFF}`);
  lines.push(`Today Date: ${formatDate(options.date ?? today())}`);
  const block = lines.join('\n');
  return callerSystem ? `${block}\n\n${callerSystem}` : block;
}
