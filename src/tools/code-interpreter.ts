/**
 * The built-in `code_interpreter` tool: the model's Python runs in a Sandbox (in the page: Pyodide in
 * an opaque-origin iframe, no network); the result is JSON the model can read.
 *
 * Invariants: the result is never an empty object — fields that are empty are left out, and a run
 * with no output at all says so (`{"stdout": "", "note": "no output"}`); `state_lost` appears only
 * when earlier variables are gone; `truncated` names the fields that were cut (each cut is also
 * marked inside its text); `note` carries the sandbox's notice (work left running was stopped and
 * the state reset). The context's signal reaches the sandbox (an abort kills the run). When no
 * interpreter can run the code at all, that is the app's failure (AppFailure), never a result.
 * Needs no confirmation: nothing leaves the sandbox.
 */
import type { Sandbox, SandboxResult } from '../sandbox/sandbox';
import { AppFailure } from './app-failure';
import { ToolError, type Tool } from './tool';

export interface CodeInterpreterOptions {
  /** Per-run limit passed to the sandbox. Default 10 s (the loop waits a second longer). */
  timeoutMs?: number;
}

export const DEFAULT_CODE_TIMEOUT_MS = 10_000;

export interface CodeInterpreterTool extends Tool {
  /** Starts the interpreter ahead of the first call (a cold start takes seconds). */
  warm(): Promise<void>;
}

export const NO_OUTPUT = 'no output';

export function codeInterpreterTool(sandbox: Sandbox, options: CodeInterpreterOptions = {}): CodeInterpreterTool {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CODE_TIMEOUT_MS;
  return {
    name: 'code_interpreter',
    /**
     * The sandbox enforces both its limits itself — the run's, and the interpreter's startup, which a cold
     * first call also waits for — so the loop's own timer allows for both (read at each call).
     */
    get timeoutMs() {
      return sandbox.ready ? timeoutMs : timeoutMs + sandbox.startTimeoutMs;
    },
    description:
      "Runs Python 3 code (Pyodide, standard library only, no network) and returns stdout, stderr, the last expression's repr and any traceback. Variables persist between calls.",
    parameters: {
      type: 'object',
      properties: { code: { type: 'string', description: 'The Python code to run.' } },
      required: ['code'],
    },
    async execute(args, { signal }) {
      const code = args.code;
      if (typeof code !== 'string' || code.trim() === '') {
        throw new ToolError('code_interpreter needs a non-empty "code" string', { got: code === undefined ? 'nothing' : typeof code });
      }
      const run = await sandbox.run(code, { signal, timeoutMs });
      if (run.unavailable) throw new AppFailure(`The Python interpreter could not run the code (${run.error ?? 'no reason given'}).`);
      return codeInterpreterResult(run);
    },
    warm: () => sandbox.warm(),
  };
}

/** A SandboxResult as the model reads it: {stdout, stderr, result, error, state_lost, truncated}, empty fields left out. */
export function codeInterpreterResult(run: SandboxResult): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (run.stdout !== '') out.stdout = run.stdout;
  if (run.stderr !== '') out.stderr = run.stderr;
  if (run.result !== null) out.result = run.result;
  if (run.error !== null) out.error = run.error;
  if (Object.keys(out).length === 0 && run.notice === undefined) return { stdout: '', note: NO_OUTPUT };
  if (run.notice !== undefined) out.note = run.notice;
  if (run.stateLost) out.state_lost = true;
  if (run.truncated.length > 0) out.truncated = [...run.truncated];
  return out;
}
