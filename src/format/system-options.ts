/**
 * The system block's options for one conversation, decided once when it starts: the tools' options
 * (unless the conversation carries its own, as a replayed file does) and, whenever any option is on,
 * its date — the one the conversation already has, else the clock's local date. A conversation keeps
 * that date, so crossing midnight changes neither its prompt nor the engine's cached prefix.
 */
import { hasSystemOptions } from './system-block';
import type { SystemOptions } from './transcript';

export interface ToolOptions {
  builtinTools: string[];
  tools: object[];
}

/** `given`: the conversation's own options (its date included, once it has one); `offered`: what the tools render as. */
export function conversationSystemOptions(given: SystemOptions, offered: ToolOptions | null, today: () => Date = () => new Date()): SystemOptions {
  const own = given.builtinTools !== undefined || given.tools !== undefined;
  const anyOffered = offered !== null && offered.builtinTools.length + offered.tools.length > 0;
  const options = definedOptions({ ...given, ...(own || !anyOffered ? {} : { builtinTools: offered.builtinTools, tools: offered.tools }) });
  if (options.date === undefined && (anyOffered || hasSystemOptions(options))) options.date = isoDate(today());
  return definedOptions(options);
}

/** The local calendar date as YYYY-MM-DD. */
export function isoDate(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** The options given, always in one key order (so two decisions compare as JSON). */
function definedOptions(o: SystemOptions): SystemOptions {
  const out: SystemOptions = {};
  if (o.builtinTools !== undefined) out.builtinTools = o.builtinTools;
  if (o.tools !== undefined) out.tools = o.tools;
  if (o.date !== undefined) out.date = o.date;
  if (o.knowledgeCutoff !== undefined) out.knowledgeCutoff = o.knowledgeCutoff;
  return out;
}
