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

import * as v from 'valibot';
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

/** A count: a non-negative safe integer. */
const count = v.pipe(v.number(), v.safeInteger(), v.minValue(0));

/** Text kept within the limit, and how many characters the worker left out. */
const cappedText = v.object({ text: v.string(), dropped: count });
export type CappedText = v.InferOutput<typeof cappedText>;

const missingPackage = v.object({
  /** The top-level module name the code imported, e.g. `sklearn`. */
  module: v.string(),
  /** The Pyodide package that provides it, e.g. `scikit-learn`. */
  package: v.string(),
});
export type MissingPackage = v.InferOutput<typeof missingPackage>;

const workerMessage = v.variant('type', [
  v.object({ type: v.literal('ready'), startMs: v.number() }),
  /** A package file (a name from the lock file) that the imports of the run in flight need. */
  v.object({ type: v.literal('package'), id: count, file: v.string() }),
  v.object({ type: v.literal('start-error'), message: v.string() }),
  v.object({ type: v.literal('output'), id: count, stream: v.picklist(['stdout', 'stderr']), text: v.string() }),
  v.object({
    type: v.literal('done'),
    id: count,
    result: v.nullable(cappedText),
    error: v.nullable(cappedText),
    /** The run failed importing a module that is a Pyodide package (not in the standard library). */
    missing: v.nullable(missingPackage),
    dropped: v.object({ stdout: count, stderr: count }),
    /** The runtime itself failed (not the Python code): it must be replaced. */
    fatal: v.boolean(),
    /** The code left timers, message loops or asyncio tasks running after it returned: the interpreter must be replaced. */
    leftover: v.boolean(),
    /** What changed in the cell harness or the hooks around it (cell-harness.ts), or null: the interpreter must be replaced. */
    tampered: v.nullable(v.string()),
    /** An allocation went past the ceiling on JS buffers: the interpreter must be replaced (it frees them). */
    bufferCeiling: v.boolean(),
  }),
]);
export type WorkerMessage = v.InferOutput<typeof workerMessage>;

const frameMessage = v.object({ type: v.literal('worker-error'), message: v.string() });
export type FrameMessage = v.InferOutput<typeof frameMessage>;

/** Plain objects only (an array is never a message). */
const notArray = (data: unknown) => !Array.isArray(data);

/** The message if it is a well-formed WorkerMessage (a copy of its known fields), else null. */
export function readWorkerMessage(data: unknown): WorkerMessage | null {
  const parsed = v.safeParse(workerMessage, data);
  return parsed.success && notArray(data) ? parsed.output : null;
}

/** The message if it is a well-formed FrameMessage, else null. */
export function readFrameMessage(data: unknown): FrameMessage | null {
  const parsed = v.safeParse(frameMessage, data);
  return parsed.success && notArray(data) ? parsed.output : null;
}
