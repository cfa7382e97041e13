/**
 * The one adapter from a pushed callback (what comlink can carry) to an AsyncIterable (what
 * callers consume). Values pushed before anyone iterates are buffered; `end` and `fail` finish it.
 */
export function callbackStream<T>(): {
  push: (value: T) => void;
  end: () => void;
  fail: (error: unknown) => void;
  iterable: AsyncIterable<T>;
} {
  const buffer: T[] = [];
  let done = false;
  let failure: { error: unknown } | null = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  return {
    push: (value) => {
      if (done) return;
      buffer.push(value);
      notify();
    },
    end: () => {
      done = true;
      notify();
    },
    fail: (error) => {
      failure = { error };
      done = true;
      notify();
    },
    iterable: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          while (buffer.length > 0) yield buffer.shift()!;
          if (failure) throw failure.error;
          if (done) return;
          await new Promise<void>((resolve) => (wake = resolve));
        }
      },
    },
  };
}
