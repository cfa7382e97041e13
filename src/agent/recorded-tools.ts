/**
 * Tools that answer from a recording instead of the world: `{"brave_search": {"<query>": result},
 * "wolfram_alpha": {...}, "code_interpreter": {"<code>": result}}`. For offline runs of the real
 * loop (CLI `ask --results`); an unrecorded call is an error result the model can read.
 */
import { ToolError, type Tool } from '../tools/tool';

export type ToolRecording = Record<string, Record<string, unknown>>;

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
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('expected an object of tool name → {call → result}');
  for (const [name, answers] of Object.entries(value)) {
    if (typeof answers !== 'object' || answers === null || Array.isArray(answers)) throw new Error(`${name}: expected an object of call → result`);
  }
  return value as ToolRecording;
}
