/**
 * One life of the Python interpreter: a sandbox frame, its worker and the Python state in them.
 * Once killed (timeout, abort, reset, crash, leftover work, dispose) it is never used again; the
 * sandbox makes a new one. Messages are accepted only from this life's own ports, only when
 * well-formed, and a result only for the run in flight; a package file is fetched for the worker
 * only while a run is in flight (its imports load before its code runs).
 */
import type { CappedText, MissingPackage, PackageData, WorkerConfig } from './protocol';
import { readFrameMessage, readWorkerMessage } from './protocol';
import { packageFile, pyodideFiles } from './pyodide-files';
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
  leftover: boolean;
  tampered: string | null;
  bufferCeiling: boolean;
}

/** Why a run or startup ended without an outcome: the interpreter is gone. */
export class InterpreterGone extends Error {
  override readonly name = 'InterpreterGone';
}

interface InFlight {
  id: number;
  code: string;
  onOutput: (stream: 'stdout' | 'stderr', text: string) => void;
  resolve: (outcome: CellOutcome) => void;
  reject: (error: InterpreterGone) => void;
}

export class Interpreter {
  /** Resolves with Pyodide's startup time (ms) once runs can be sent; rejects if it cannot start. */
  readonly ready: Promise<number>;
  private frame: SandboxFrame | null = null;
  private readonly config: WorkerConfig;
  private inFlight: InFlight | null = null;
  private gone: InterpreterGone | null = null;
  private settleStart: { resolve: (ms: number) => void; reject: (e: InterpreterGone) => void } | null = null;
  private readonly startTimer: ReturnType<typeof setTimeout>;

  constructor({ container, workerConfig, startTimeoutMs }: InterpreterOptions) {
    this.ready = new Promise((resolve, reject) => (this.settleStart = { resolve, reject }));
    this.ready.catch(() => {}); // observed by whoever awaits it; never an unhandled rejection
    this.config = workerConfig;
    pyodideFiles(workerConfig.indexUrl).then(
      (files) => {
        if (this.gone) return;
        const frame = openSandboxFrame({
          container,
          workerSource: workerSource(),
          workerConfig,
          files,
          onReload: () => this.kill('the sandbox frame was reloaded (moved in the document?), which ended the interpreter; its state was lost'),
        });
        this.frame = frame;
        frame.worker.onmessage = (event) => this.onWorkerMessage(event.data);
        frame.control.onmessage = (event) => {
          const message = readFrameMessage(event.data);
          // After startup a worker error event is an uncaught JS exception (e.g. from a callback the
          // model scheduled), not the worker's end: runs in flight are bounded by their timeout.
          if (message && this.settleStart) this.kill(`the Python worker failed to start: ${message.message}`);
        };
      },
      (e: unknown) => this.kill(`the Python interpreter could not load its files: ${e instanceof Error ? e.message : String(e)}`),
    );
    this.startTimer = setTimeout(
      () => this.kill(`the Python interpreter did not start within ${startTimeoutMs / 1000}s`),
      startTimeoutMs,
    );
  }

  /** Runs one cell; rejects with InterpreterGone if this life ends first. One at a time. */
  execute(id: number, code: string, onOutput: InFlight['onOutput']): Promise<CellOutcome> {
    if (this.gone) return Promise.reject(this.gone);
    if (this.inFlight) return Promise.reject(new Error('a run is already in flight'));
    const frame = this.frame;
    if (!frame) return Promise.reject(new Error('the interpreter has not started'));
    return new Promise<CellOutcome>((resolve, reject) => {
      this.inFlight = { id, code, onOutput, resolve, reject };
      frame.worker.postMessage({ type: 'run', id, code });
    });
  }

  /** Ends this life: removes the frame (terminating the worker) and fails what is pending. Idempotent. */
  kill(reason: string): void {
    if (this.gone) return;
    this.gone = new InterpreterGone(reason);
    clearTimeout(this.startTimer);
    this.frame?.remove();
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
      case 'package':
        void this.sendPackage(message.id, message.file);
        return;
      case 'done': {
        const run = this.inFlight;
        if (run?.id !== message.id) return;
        this.inFlight = null;
        const { result, error, missing, dropped, fatal, leftover, tampered, bufferCeiling } = message;
        run.resolve({ result, error, missing, dropped, fatal, leftover, tampered, bufferCeiling });
        return;
      }
    }
  }

  /** Answers a package request: the file's bytes if the imports of the run in flight need it. */
  private async sendPackage(id: number, file: string): Promise<void> {
    const base = this.config.packageBaseUrl;
    const run = this.inFlight;
    const answer = base && run ? await packageFile(this.config.indexUrl, base, run.code, file) : { status: 0, bytes: null };
    if (this.gone || !this.frame) return;
    const data: PackageData = { type: 'package-data', id, ...answer };
    this.frame.worker.postMessage(data, answer.bytes ? [answer.bytes] : []);
  }
}
