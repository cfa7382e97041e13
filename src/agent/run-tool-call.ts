import { abortError } from '../engine/errors';
import type { ToolCall } from '../format/types';
import { AppFailure } from '../tools/app-failure';
import { FAILURE_TEXTS } from '../tools/failure-texts';
import type { ToolDestination } from '../tools/tool';
import { formatToolResult, timeoutError } from '../tools/tool-result';
import type { ToolSet } from './tool-set';

/** Asks the user about one call; `where` says where its data goes when the tool knows (absent: a host tool). */
export type Confirmer = (call: ToolCall, where?: ToolDestination) => Promise<boolean>;

export interface ToolCallOptions {
  tools: ToolSet;
  /** The run's signal (the caller's abort and the loop's time budget). */
  signal: AbortSignal;
  timeoutMs: number;
  /** Result budget in tokens, counted exactly by the page's tokenizer. */
  maxResultTokens: number;
  countTokens: (text: string) => number;
  /** Asks the user, saying where the data goes; resolves true to run the tool. Absent: tools that need confirmation are declined. */
  confirm?: Confirmer;
  /** Ask about calls answered on this device too (default false: they need no consent). */
  confirmOnDevice?: boolean;
  onConfirmationRequest: () => void;
}

/**
 * Runs one parsed call and returns the ipython turn's content. Every failure — unknown tool, bad
 * call, invalid arguments, a throw, a timeout, a denied confirmation — is a result the model can
 * read, never an empty turn. Only the caller's abort (or the time budget) escapes, as AbortError, and
 * the app's own failure (AppFailure), which the model must not read.
 */
export async function runToolCall(call: ToolCall, o: ToolCallOptions): Promise<{ content: string; isError: boolean; source?: string }> {
  const format = (outcome: { ok: true; value: unknown } | { ok: false; error: unknown }) => ({
    content: formatToolResult(outcome, { maxTokens: o.maxResultTokens, countTokens: o.countTokens }),
    isError: !outcome.ok,
  });
  const resolved = o.tools.resolve(call);
  if ('error' in resolved) return { ...format({ ok: true, value: resolved.error }), isError: true };
  const { tool, args } = resolved;

  const where = tool.needsConfirmation && tool.destination ? await raceAbort(tool.destination(o.signal), o.signal) : undefined;
  if (tool.needsConfirmation && (!where?.onDevice || o.confirmOnDevice)) {
    o.onConfirmationRequest();
    const approved = o.confirm ? await raceAbort(o.confirm(call, where), o.signal) : false;
    if (!approved) {
      return format({
        ok: false,
        error: new Error(o.confirm ? FAILURE_TEXTS.declined(tool.name) : FAILURE_TEXTS.noConfirmer(tool.name)),
      });
    }
  }

  // A tool with its own limit reports it better than we can (e.g. "state lost"): let it fire first.
  const timeoutMs = tool.timeoutMs !== undefined ? Math.max(o.timeoutMs, tool.timeoutMs + 1000) : o.timeoutMs;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([o.signal, timeout]);
  try {
    let source: string | undefined;
    const value = await raceAbort(tool.execute(args, { signal, reportSource: (s) => void (source = s) }), signal);
    return { ...format({ ok: true, value }), ...(source !== undefined ? { source } : {}) };
  } catch (e) {
    if (o.signal.aborted) throw abortError('aborted while a tool was running');
    if (timeout.aborted) return { content: timeoutError(timeoutMs), isError: true };
    if (e instanceof AppFailure) throw e;
    return format({ ok: false, error: e });
  }
}

/** Settles with the promise, or rejects as soon as the signal aborts (a tool that ignores its signal still stops counting). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
