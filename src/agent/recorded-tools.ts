/**
 * Tools that answer from a recording instead of the world: `{"brave_search": {"<query>": result},
 * "wolfram_alpha": {...}, "code_interpreter": {"<code>": result}}`. For offline runs of the real
 * loop (CLI `ask --results`); an unrecorded call is an error result the model can read.
 */
import * as v from 'valibot';
import { parseFirst, plainObject } from '../parse/fields';
import { ToolError, type Tool } from '../tools/tool';

/** Tool name → the recorded call (its query, code, or JSON arguments) → the result. */
const RECORDING = v.pipe(
  plainObject<Record<string, unknown>>('expected an object of tool name → {call → result}'),
  v.record(v.string(), plainObject<Record<string, unknown>>('expected an object of call → result')),
);

export type ToolRecording = v.InferOutput<typeof RECORDING>;

const ARGUMENT: Record<string, string> = { brave_search: 'query', wolfram_alpha: 'query', code_interpreter: 'code' };

export function recordedTools(recording: ToolRecording): Tool[] {
  return Object.entries(recording).map(([name, answers]) => {
    const key = ARGUMENT[name];
    return {
      name,
      description: `${name} (recorded answers)`,
      parameters: { type: 'object' },
      async execute(args) {
        const lookup = key ? args[key] : JSON.stringify(args);
        if (typeof lookup !== 'string' || !(lookup in answers)) {
          throw new ToolError(`no recorded result for ${name} ${JSON.stringify(lookup)}`);
        }
        return answers[lookup];
      },
    };
  });
}

/** Validates a parsed --results file; throws an Error naming what is wrong. */
export function parseRecording(value: unknown): ToolRecording {
  const parsed = parseFirst(RECORDING, value);
  if (parsed.ok) return parsed.value;
  const { path, message } = parsed.issue;
  throw new Error(path.length > 0 ? `${path.join('.')}: ${message}` : message);
}
