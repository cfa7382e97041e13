/** The code interpreter's host contract: model-written Python runs here, isolated from the page. */

/** How long a run waits for an interpreter to start, unless the sandbox is told otherwise. */
export const DEFAULT_START_TIMEOUT_MS = 60_000;

export interface SandboxRunOptions {
  /** Wall-clock limit; on expiry the interpreter is killed and replaced (state is lost). Default 10 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface SandboxResult {
  stdout: string;
  stderr: string;
  /** repr() of the last expression's value, or null. */
  result: string | null;
  /** The traceback or the reason the run failed (timeout, abort, memory, crash), or null. */
  error: string | null;
  /** True when the interpreter was replaced during this run: variables from earlier calls are gone. */
  stateLost: boolean;
  /**
   * What the model must know about a run that is not an error: the code left work running (timers,
   * a message loop, asyncio tasks) after it returned, so the interpreter was restarted and its state
   * reset. Absent otherwise.
   */
  notice?: string;
  /**
   * The code did not run because no interpreter could (it could not be created or start, or the sandbox
   * was disposed): `error` says why, for the user; a failure of the app, not of the code. Absent otherwise.
   */
  unavailable?: true;
  /** Which of stdout/stderr/result/error were cut to their limit. */
  truncated: Array<'stdout' | 'stderr' | 'result' | 'error'>;
  durationMs: number;
}

export interface Sandbox {
  /** An interpreter is up: a run starts at once. */
  readonly ready: boolean;
  /** How long a run waits for an interpreter to start before it fails (its own limit, apart from the run's). */
  readonly startTimeoutMs: number;
  /** Starts the interpreter in the background (Pyodide's cold start is seconds). Idempotent. */
  warm(): Promise<void>;
  /**
   * Runs code; Python state persists across runs (like a notebook) until reset or a kill. Nothing
   * the code starts outlives its run: what is still scheduled when it returns is ended with the
   * interpreter (`notice` says so).
   */
  run(code: string, options?: SandboxRunOptions): Promise<SandboxResult>;
  /** Fresh interpreter, no variables. */
  reset(): Promise<void>;
  /** Removes the iframe and its worker. */
  dispose(): void;
}
