/**
 * A stream of values produced by a running task, as an AsyncIterable that owns the task's abort:
 * a consumer that stops early (`break`, `return`, a thrown error) aborts the task, and so does the
 * caller's signal. Values produced before anyone iterates are buffered.
 */
import { callbackStream } from '../engine/callback-stream';

export function abortableStream<T>(
  run: (push: (value: T) => void, signal: AbortSignal) => Promise<void>,
  callerSignal?: AbortSignal,
): AsyncIterable<T> {
  const controller = new AbortController();
  const signal = callerSignal ? AbortSignal.any([callerSignal, controller.signal]) : controller.signal;
  const stream = callbackStream<T>();
  run(stream.push, signal).then(stream.end, stream.fail);
  return {
    async *[Symbol.asyncIterator]() {
      try {
        yield* stream.iterable;
      } finally {
        controller.abort();
      }
    },
  };
}
