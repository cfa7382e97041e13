/**
 * Turns what a run produced into a SandboxResult: every field cut to the limit with the cut marked
 * (stdout, stderr and the result keep their start, a traceback keeps its end) and `truncated`
 * naming each field that was cut. Also the fixed wording of the sandbox's own errors. Pure.
 */
import type { MissingPackage } from './protocol';
import type { SandboxResult } from './sandbox';
import { createOutputCap, type OutputCap } from './output-cap';
import { keepHead, keepTail } from './truncate';

export interface RunRecord {
  stdout: string;
  stderr: string;
  /** Characters of each stream dropped before they reached the host (the worker's cap). */
  dropped: { stdout: number; stderr: number };
  /** repr() of the last expression, and how much of it the worker already cut. */
  result: { text: string; dropped: number } | null;
  /** The traceback or the sandbox's reason, and how much of it was already cut (from the start). */
  error: { text: string; dropped: number } | null;
  stateLost: boolean;
  notice?: string;
}

export function toSandboxResult(record: RunRecord, limit: number, durationMs: number): SandboxResult {
  const truncated: SandboxResult['truncated'] = [];
  const field = <K extends 'stdout' | 'stderr'>(key: K) => {
    const cut = keepHead(record[key], limit, record.dropped[key]);
    if (cut.cut) truncated.push(key);
    return cut.text;
  };
  const stdout = field('stdout');
  const stderr = field('stderr');
  const result = record.result && keepHead(record.result.text, limit, record.result.dropped);
  if (result?.cut) truncated.push('result');
  const error = record.error && keepTail(record.error.text, limit, record.error.dropped);
  if (error?.cut) truncated.push('error');
  return {
    stdout,
    stderr,
    result: result ? result.text : null,
    error: error ? error.text : null,
    stateLost: record.stateLost,
    ...(record.notice === undefined ? {} : { notice: record.notice }),
    truncated,
    durationMs,
  };
}

/** Output of one run as it streams in, capped on the host too (the worker's cap is not trusted). */
export class RunOutput {
  private readonly text = { stdout: '', stderr: '' };
  private readonly caps: Record<'stdout' | 'stderr', OutputCap>;

  constructor(limit: number) {
    this.caps = { stdout: createOutputCap(limit), stderr: createOutputCap(limit) };
  }

  append(stream: 'stdout' | 'stderr', text: string): void {
    this.text[stream] += this.caps[stream].take(text);
  }

  /** The record so far, adding what the worker reported dropping. */
  record(workerDropped = { stdout: 0, stderr: 0 }): Pick<RunRecord, 'stdout' | 'stderr' | 'dropped'> {
    return {
      stdout: this.text.stdout,
      stderr: this.text.stderr,
      dropped: {
        stdout: this.caps.stdout.dropped() + workerDropped.stdout,
        stderr: this.caps.stderr.dropped() + workerDropped.stderr,
      },
    };
  }
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10}s`;

/** The reason, followed by what it cost. */
export const stateLostMessage = (reason: string) => `${reason}; the interpreter was restarted and its state was lost`;

/** The notice of a run whose code left work running after it returned. */
export const LEFTOVER_NOTICE =
  'the code left work running after it finished (timers, callbacks or asyncio tasks): it was stopped by restarting the interpreter, so its state was reset and variables from this and earlier calls are gone';

/** The error of a run during which the cell harness, or what it runs on, was changed (cell-harness.ts). */
export const tamperedMessage = (what: string) =>
  stateLostMessage(`the code tampered with the code interpreter's harness (${what}); the harness runs each cell and reports its result, so that is not allowed`);

/** Appended to the error of a run that reached the ceiling on JS buffers (worker-buffers.ts). */
export const bufferCeilingNote = (limit: number) =>
  stateLostMessage(`the code reached the sandbox's ceiling of ${Math.round(limit / 2 ** 20)} MiB of JS buffers (ArrayBuffer, typed arrays, Blob); the buffers were freed with the interpreter`);

export const timeoutMessage = (timeoutMs: number) => stateLostMessage(`timeout after ${seconds(timeoutMs)}`);

/** The error of a run in flight when the sandbox was replaced (reset, timeout, abort). */
export const runKilledMessage = (reason: string) => `the interpreter was ${reason} during this run; its state was lost`;

/** Appended to the traceback of an import of a Pyodide package that is not there. */
export function missingPackageNote({ module, package: pkg }: MissingPackage, packageBaseUrl: string | null): string {
  const which = module === pkg ? module : `${module} (Pyodide package ${pkg})`;
  if (packageBaseUrl === null) {
    return (
      `${which} is not available offline: this sandbox has Python's standard library only. ` +
      `To use it, configure the sandbox's packageBaseUrl with a URL serving the Pyodide package files ` +
      `(the wheels listed in pyodide-lock.json).`
    );
  }
  return `${which} could not be loaded from the package URL ${packageBaseUrl} (see stderr for the loader's messages).`;
}
