/**
 * The wire between the host and the sandbox: the frame's bootstrap speaks on a control port, the
 * Pyodide worker on its own port (both transferred from the host at startup; nothing travels over
 * window `message` events after that). The worker runs model-written code, so everything that
 * arrives is read through the validators below, never trusted as typed.
 *
 * The sandbox has no network (connect-src 'none'): the host fetches Pyodide's runtime files and
 * hands them over at startup (PyodideFiles), and fetches the package files a run's imports need when
 * the worker asks (`package` → PackageData) — only file names its own lock file lists.
 */

import type { CellHarnessSources } from './cell-harness';

/** Given to the worker once, with its port, before any model code runs. */
export interface WorkerConfig {
  /** Absolute URL of the Pyodide runtime directory, ending in '/'. */
  indexUrl: string;
  /** Absolute URL of a Pyodide package directory, or null: extra packages are unavailable (offline). */
  packageBaseUrl: string | null;
  /** Characters kept per output field (stdout, stderr, result, error). */
  outputLimit: number;
  /** Bytes of JS buffers the interpreter may hold (worker-buffers.ts). */
  bufferLimit: number;
  /** Python sources of the cell harness (cell-harness.ts). */
  harness: CellHarnessSources;
}

/** Pyodide's runtime files the worker would otherwise fetch (pyodide.mjs and pyodide.asm.mjs are imported as scripts). */
export interface PyodideFiles {
  /** pyodide.asm.wasm */
  wasm: ArrayBuffer;
  /** python_stdlib.zip */
  stdlib: ArrayBuffer;
  /** pyodide-lock.json, as text */
  lock: string;
}

/** What the host sends to the frame's bootstrap, with [control port, worker port] and the files' buffers. */
export interface FrameStart {
  type: 'start';
  workerSource: string;
  workerConfig: WorkerConfig;
  files: PyodideFiles;
}

/** The host's answer to a `package` request: the file's bytes, or the HTTP status (0: not fetched) that stopped it. */
export interface PackageData {
  type: 'package-data';
  id: number;
  status: number;
  bytes: ArrayBuffer | null;
}

export interface RunRequest {
  type: 'run';
  id: number;
  code: string;
}

/** Text kept within the limit, and how many characters the worker left out. */
export interface CappedText {
  text: string;
  dropped: number;
}

export interface MissingPackage {
  /** The top-level module name the code imported, e.g. `sklearn`. */
  module: string;
  /** The Pyodide package that provides it, e.g. `scikit-learn`. */
  package: string;
}

export type WorkerMessage =
  | { type: 'ready'; startMs: number }
  /** A package file (a name from the lock file) that the imports of the run in flight need. */
  | { type: 'package'; id: number; file: string }
  | { type: 'start-error'; message: string }
  | { type: 'output'; id: number; stream: 'stdout' | 'stderr'; text: string }
  | {
      type: 'done';
      id: number;
      result: CappedText | null;
      error: CappedText | null;
      /** The run failed importing a module that is a Pyodide package (not in the standard library). */
      missing: MissingPackage | null;
      dropped: { stdout: number; stderr: number };
      /** The runtime itself failed (not the Python code): it must be replaced. */
      fatal: boolean;
      /** The code left timers, message loops or asyncio tasks running after it returned: the interpreter must be replaced. */
      leftover: boolean;
      /** What changed in the cell harness or the hooks around it (cell-harness.ts), or null: the interpreter must be replaced. */
      tampered: string | null;
      /** An allocation went past the ceiling on JS buffers: the interpreter must be replaced (it frees them). */
      bufferCeiling: boolean;
    };

export type FrameMessage = { type: 'worker-error'; message: string };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function cappedText(v: unknown): CappedText | null | undefined {
  if (v === null) return null;
  if (!isObj(v) || typeof v.text !== 'string' || !isCount(v.dropped)) return undefined;
  return { text: v.text, dropped: v.dropped };
}

function missingPackage(v: unknown): MissingPackage | null | undefined {
  if (v === null) return null;
  if (!isObj(v) || typeof v.module !== 'string' || typeof v.package !== 'string') return undefined;
  return { module: v.module, package: v.package };
}

/** The message if it is a well-formed WorkerMessage (copied field by field), else null. */
export function readWorkerMessage(data: unknown): WorkerMessage | null {
  if (!isObj(data)) return null;
  switch (data.type) {
    case 'ready':
      return typeof data.startMs === 'number' ? { type: 'ready', startMs: data.startMs } : null;
    case 'start-error':
      return typeof data.message === 'string' ? { type: 'start-error', message: data.message } : null;
    case 'package':
      return isCount(data.id) && typeof data.file === 'string' ? { type: 'package', id: data.id, file: data.file } : null;
    case 'output':
      if (!isCount(data.id) || (data.stream !== 'stdout' && data.stream !== 'stderr') || typeof data.text !== 'string') return null;
      return { type: 'output', id: data.id, stream: data.stream, text: data.text };
    case 'done': {
      const result = cappedText(data.result);
      const error = cappedText(data.error);
      const missing = missingPackage(data.missing);
      const dropped = data.dropped;
      if (!isCount(data.id) || result === undefined || error === undefined || missing === undefined) return null;
      if (!isObj(dropped) || !isCount(dropped.stdout) || !isCount(dropped.stderr) || typeof data.fatal !== 'boolean' || typeof data.leftover !== 'boolean') return null;
      if ((data.tampered !== null && typeof data.tampered !== 'string') || typeof data.bufferCeiling !== 'boolean') return null;
      const counts = { stdout: dropped.stdout, stderr: dropped.stderr };
      return { type: 'done', id: data.id, result, error, missing, dropped: counts, fatal: data.fatal, leftover: data.leftover, tampered: data.tampered, bufferCeiling: data.bufferCeiling };
    }
    default:
      return null;
  }
}

/** The message if it is a well-formed FrameMessage, else null. */
export function readFrameMessage(data: unknown): FrameMessage | null {
  if (!isObj(data) || data.type !== 'worker-error' || typeof data.message !== 'string') return null;
  return { type: 'worker-error', message: data.message };
}
