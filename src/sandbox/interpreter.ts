/**
 * One life of the Python interpreter: a sandbox frame, its worker and the Python state in them.
 * Once killed (timeout, abort, reset, crash, dispose) it is never used again; the sandbox makes a
 * new one. Messages are accepted only from this life's own ports, only when well-formed, and a
 * result only for the run in flight.
 */
import type { CappedText, MissingPackage, WorkerConfig } from './protocol';
import { readFrameMessage, readWorkerMessage } from './protocol';
import { openSandboxFrame, type SandboxFrame } from './sandbox-frame';
import { workerSource } from './worker-source';

export interface InterpreterOptions {
  container: HTMLElement;
  workerConfig: WorkerConfig;
  /** Startup (loading Pyodide) must finish within this. */
  startTimeoutMs: number;
}

export interface CellOutcome {
  result: CappedText | null;
  error: CappedText | null;
  missing: MissingPackage | null;
  dropped: { stdout: number; stderr: number };
  fatal: boolean;
}

/** Why a run or startup ended without an outcome: the interpreter is gone. */
export class InterpreterGone extends Error {
  override readonly name = 'InterpreterGone';
}

interface InFlight {
  id: number;
  onOutput: (stream: 'stdout' | 'stderr', text: string) => void;
  resolve: (outcome: CellOutcome) => void;
  reject: (error: InterpreterGone) => void;
}

export class Interpreter {
  /** Resolves with Pyodide's startup time (ms) once runs can be sent; rejects if it cannot start. */
  readonly ready: Promise<number>;
  private readonly frame: SandboxFrame;
  private inFlight: InFlight | null = null;
  private gone: InterpreterGone | null = null;
  private settleStart: { resolve: (ms: number) => void; reject: (e: InterpreterGone) => void } | null = null;
  private readonly startTimer: ReturnType<typeof setTimeout>;

  constructor({ container, workerConfig, startTimeoutMs }: InterpreterOptions) {
    this.ready = new Promise((resolve, reject) => (this.settleStart = { resolve, reject }));
    this.ready.catch(() => {}); // observed by whoever awaits it; never an unhandled rejection
    this.frame = openSandboxFrame({
      container,
      workerSource: workerSource(),
      workerConfig,
      onReload: () => this.kill('the sandbox frame was reloaded (moved in the document?), which ended the interpreter; its state was lost'),
    });
    this.frame.worker.onmessage = (event) => this.onWorkerMessage(event.data);
    this.frame.control.onmessage = (event) => {
      const message = readFrameMessage(event.data);
      // After startup a worker error event is an uncaught JS exception (e.g. from a callback the
      // model scheduled), not the worker's end: runs in flight are bounded by their timeout.
      if (message && this.settleStart) this.kill(`the Python worker failed to start: ${message.message}`);
    };
    this.startTimer = setTimeout(
      () => this.kill(`the Python interpreter did not start within ${startTimeoutMs / 1000}s`),
      startTimeoutMs,
    );
  }

  /** Runs one cell; rejects with InterpreterGone if this life ends first. One at a time. */
  execute(id: number, code: string, onOutput: InFlight['onOutput']): Promise<CellOutcome> {
    if (this.gone) return Promise.reject(this.gone);
    if (this.inFlight) return Promise.reject(new Error('a run is already in flight'));
    return new Promise<CellOutcome>((resolve, reject) => {
      this.inFlight = { id, onOutput, resolve, reject };
      this.frame.worker.postMessage({ type: 'run', id, code });
    });
  }

  /** Ends this life: removes the frame (terminating the worker) and fails what is pending. Idempotent. */
  kill(reason: string): void {
    if (this.gone) return;
    this.gone = new InterpreterGone(reason);
    clearTimeout(this.startTimer);
    this.frame.remove();
    this.settleStart?.reject(this.gone);
    this.settleStart = null;
    this.inFlight?.reject(this.gone);
    this.inFlight = null;
  }

  get alive(): boolean {
    return this.gone === null;
  }

  private onWorkerMessage(data: unknown): void {
    const message = readWorkerMessage(data);
    if (!message || this.gone) return;
    switch (message.type) {
      case 'ready':
        clearTimeout(this.startTimer);
        this.settleStart?.resolve(message.startMs);
        this.settleStart = null;
        return;
      case 'start-error':
        this.kill(`the Python interpreter failed to start: ${message.message}`);
        return;
      case 'output':
        if (this.inFlight?.id === message.id) this.inFlight.onOutput(message.stream, message.text);
        return;
      case 'done': {
        const run = this.inFlight;
        if (run?.id !== message.id) return;
        this.inFlight = null;
        const { result, error, missing, dropped, fatal } = message;
        run.resolve({ result, error, missing, dropped, fatal });
        return;
      }
    }
  }
}
