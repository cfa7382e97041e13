/**
 * The code interpreter's sandbox: Python (Pyodide) in a module Worker inside an opaque-origin
 * `<iframe sandbox="allow-scripts">` with a CSP that lets it connect nowhere.
 *
 * Invariants:
 * - Runs execute one at a time, in call order; Python state persists across them until reset().
 * - `run` never rejects: every failure (Python error, timeout, abort, crash, startup failure) is
 *   a SandboxResult whose `error` says what happened.
 * - A timeout or an abort kills the interpreter (the frame is removed, which terminates its worker,
 *   whatever the code is doing) and starts a new one at once; that run reports `stateLost`.
 * - The timeout counts the run itself, not the interpreter's startup (bounded by startTimeoutMs).
 * - Every field of a result is capped at `outputLimit` characters, the cut marked and named.
 * - A run ends everything it started: when the code leaves timers, message loops or asyncio tasks
 *   behind, the interpreter is replaced and the result says so (`stateLost`, `notice`).
 * - Each cell runs through a harness model code cannot replace (cell-harness.ts): a run that changes
 *   it, or what it runs on, ends in an error that says so, and the interpreter is replaced.
 * - JS buffers the interpreter holds are capped (worker-buffers.ts): an allocation past the ceiling
 *   fails, the run's error says so, and the interpreter is replaced, which frees them.
 * - The sandbox has no network at all (csp.ts): Pyodide's files come from this page (pyodide-files.ts).
 */
import { Interpreter, InterpreterGone, type CellOutcome } from './interpreter';
import type { WorkerConfig } from './protocol';
import { PYTHON_CELL } from './python-cell';
import { PYTHON_INTEGRITY } from './python-integrity';
import { PYTHON_RUNNER } from './python-runner';
import { bufferCeilingNote, LEFTOVER_NOTICE, missingPackageNote, RunOutput, runKilledMessage, stateLostMessage, tamperedMessage, timeoutMessage, toSandboxResult, type RunRecord } from './run-result';
import { DEFAULT_START_TIMEOUT_MS, type Sandbox, type SandboxResult, type SandboxRunOptions } from './sandbox';

export interface PyodideSandboxOptions {
  /** Directory of Pyodide's runtime files (public/pyodide/), resolved against the page. Default '/pyodide/'. */
  assetBaseUrl?: string;
  /**
   * Directory serving Pyodide's package wheels (numpy, pandas…), resolved against the page. This
   * page fetches from it the files the imports of each run need (the sandbox cannot fetch).
   * Default null: offline, standard library only, and an import of a package fails with an error
   * that says how to configure this.
   */
  packageBaseUrl?: string | null;
  /** Characters kept per field (stdout, stderr, result, error). Default 20,000. */
  outputLimit?: number;
  /** Bytes of JS buffers (ArrayBuffer, typed arrays, Blob) the interpreter may hold; past it a run is refused the allocation and the interpreter is replaced. Default 1 GiB. */
  bufferLimitBytes?: number;
  /** Default per-run limit. Default 10 s. */
  timeoutMs?: number;
  /** Limit on the interpreter's startup. Default 60 s. */
  startTimeoutMs?: number;
  /** Where the hidden frame goes. Default document.body. */
  container?: HTMLElement;
}

const DEFAULTS = { outputLimit: 20_000, bufferLimitBytes: 2 ** 30, timeoutMs: 10_000, startTimeoutMs: DEFAULT_START_TIMEOUT_MS };
/** setTimeout's largest delay; a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

type Ending = { kind: 'done'; outcome: CellOutcome } | { kind: 'timeout' } | { kind: 'abort' } | { kind: 'gone'; reason: string };

export class PyodideSandbox implements Sandbox {
  private readonly config: WorkerConfig;
  private readonly timeoutMs: number;
  readonly startTimeoutMs: number;
  /** The interpreter whose startup finished (a run on it starts at once). */
  private up: Interpreter | null = null;
  private readonly container: HTMLElement | undefined;
  private interpreter: Interpreter | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private disposed = false;
  private startMs: number | null = null;

  constructor(options: PyodideSandboxOptions = {}) {
    const dir = (url: string) => {
      const href = new URL(url, location.href).href;
      return href.endsWith('/') ? href : `${href}/`;
    };
    this.config = {
      indexUrl: dir(options.assetBaseUrl ?? '/pyodide/'),
      packageBaseUrl: options.packageBaseUrl ? dir(options.packageBaseUrl) : null,
      outputLimit: options.outputLimit ?? DEFAULTS.outputLimit,
      bufferLimit: options.bufferLimitBytes ?? DEFAULTS.bufferLimitBytes,
      harness: { runner: PYTHON_RUNNER, cell: PYTHON_CELL, integrity: PYTHON_INTEGRITY },
    };
    this.timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
    this.startTimeoutMs = options.startTimeoutMs ?? DEFAULTS.startTimeoutMs;
    this.container = options.container;
  }

  get ready(): boolean {
    return this.interpreter !== null && this.up === this.interpreter && this.interpreter.alive;
  }

  /** How long the latest interpreter took to load Pyodide, measured in its worker; null until one is ready. */
  get lastStartMs(): number | null {
    return this.startMs;
  }

  async warm(): Promise<void> {
    if (this.disposed) throw new Error('the sandbox was disposed');
    await this.current().ready;
  }

  run(code: string, options: SandboxRunOptions = {}): Promise<SandboxResult> {
    const result = this.queue.then(() => this.runNow(code, options));
    this.queue = result.catch(() => {});
    return result;
  }

  async reset(): Promise<void> {
    this.replace('reset');
    await this.warm();
  }

  dispose(): void {
    this.disposed = true;
    this.interpreter?.kill('the sandbox was disposed');
    this.interpreter = null;
  }

  private current(): Interpreter {
    if (!this.interpreter?.alive) {
      const interpreter = new Interpreter({
        container: this.container ?? document.body,
        workerConfig: this.config,
        startTimeoutMs: this.startTimeoutMs,
      });
      interpreter.ready
        .then((ms) => {
          this.startMs = ms;
          this.up = interpreter;
        })
        .catch(() => {});
      this.interpreter = interpreter;
    }
    return this.interpreter;
  }

  /** Kills the current interpreter and starts the next one in the background. */
  private replace(reason: string): void {
    this.interpreter?.kill(runKilledMessage(reason));
    this.interpreter = null;
    if (!this.disposed) this.current();
  }

  private async runNow(code: string, { timeoutMs = this.timeoutMs, signal }: SandboxRunOptions): Promise<SandboxResult> {
    const started = performance.now();
    const output = new RunOutput(this.config.outputLimit);
    const finish = (fields: Partial<Pick<RunRecord, 'result' | 'error' | 'stateLost' | 'notice'>>, dropped?: RunRecord['dropped']) =>
      toSandboxResult(
        { ...output.record(dropped), result: null, error: null, stateLost: false, ...fields },
        this.config.outputLimit,
        performance.now() - started,
      );
    const fail = (text: string, stateLost = false) => finish({ error: { text, dropped: 0 }, stateLost });
    const unavailable = (text: string): SandboxResult => ({ ...fail(text), unavailable: true });

    if (this.disposed) return unavailable('the sandbox was disposed');
    if (signal?.aborted) return fail('aborted before the code ran');
    let interpreter: Interpreter;
    try {
      interpreter = this.current();
    } catch (e) {
      return unavailable(`the Python interpreter could not be created: ${e instanceof Error ? e.message : String(e)}`);
    }
    const startup = await settle(interpreter.ready, signal);
    if (startup === 'abort') return fail('aborted while the interpreter was starting; the code did not run');
    if (startup instanceof Error) return unavailable(startup.message);

    const id = this.nextId++;
    const ending = await new Promise<Ending>((resolve) => {
      const timer = setTimeout(() => resolve({ kind: 'timeout' }), Math.min(Math.max(timeoutMs, 1), MAX_TIMER_MS));
      const onAbort = () => resolve({ kind: 'abort' });
      signal?.addEventListener('abort', onAbort, { once: true });
      interpreter
        .execute(id, code, (stream, text) => output.append(stream, text))
        .then(
          (outcome) => resolve({ kind: 'done', outcome }),
          (e: unknown) => resolve({ kind: 'gone', reason: e instanceof InterpreterGone ? e.message : String(e) }),
        )
        .finally(() => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
        });
    });

    switch (ending.kind) {
      case 'timeout':
        this.replace('killed after a timeout');
        return fail(timeoutMessage(timeoutMs), true);
      case 'abort':
        this.replace('killed by an abort');
        return fail(stateLostMessage('aborted'), true);
      case 'gone':
        return fail(ending.reason, true);
      case 'done': {
        const { result, error, missing, dropped, fatal, leftover, tampered, bufferCeiling } = ending.outcome;
        if (tampered !== null) {
          this.replace('restarted because the code tampered with the harness');
          return finish({ error: { text: tamperedMessage(tampered), dropped: 0 }, stateLost: true }, dropped);
        }
        if (fatal) {
          this.replace('restarted after a crash');
          const reason = `the Python runtime failed (${error?.text ?? 'unknown error'})`;
          return finish({ error: { text: stateLostMessage(reason), dropped: 0 }, stateLost: true }, dropped);
        }
        const note = missing ? `\n${missingPackageNote(missing, this.config.packageBaseUrl)}` : '';
        const fullError = error && { text: `${error.text.replace(/\n$/, '')}${note}`, dropped: error.dropped };
        if (bufferCeiling) {
          this.replace('restarted after reaching the ceiling on JS buffers');
          const ceiling = bufferCeilingNote(this.config.bufferLimit);
          return finish({ result, error: fullError ? { text: `${fullError.text}\n${ceiling}`, dropped: fullError.dropped } : { text: ceiling, dropped: 0 }, stateLost: true }, dropped);
        }
        if (!leftover) return finish({ result, error: fullError }, dropped);
        this.replace('restarted because the code left work running');
        return finish({ result, error: fullError, stateLost: true, notice: LEFTOVER_NOTICE }, dropped);
      }
    }
  }
}

/** Waits for startup: its time, the error that ended it, or 'abort' when the signal fires first. */
function settle(ready: Promise<number>, signal: AbortSignal | undefined): Promise<number | Error | 'abort'> {
  return new Promise((resolve) => {
    const onAbort = () => resolve('abort');
    signal?.addEventListener('abort', onAbort, { once: true });
    ready.then(
      (ms) => resolve(ms),
      (e: unknown) => resolve(e instanceof Error ? e : new Error(String(e))),
    );
    void ready.finally(() => signal?.removeEventListener('abort', onAbort)).catch(() => {});
  });
}
