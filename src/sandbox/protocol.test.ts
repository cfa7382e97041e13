import { describe, expect, it } from 'vitest';
import { readFrameMessage, readWorkerMessage } from './protocol';

const done = {
  type: 'done',
  id: 3,
  result: { text: '42', dropped: 0 },
  error: null,
  missing: null,
  dropped: { stdout: 0, stderr: 5 },
  fatal: false,
  leftover: false,
  tampered: null,
  bufferCeiling: false,
};

describe('readWorkerMessage', () => {
  const valid: Record<string, unknown> = {
    ready: { type: 'ready', startMs: 2500.5 },
    'start-error': { type: 'start-error', message: 'no wasm' },
    output: { type: 'output', id: 1, stream: 'stderr', text: 'w\n' },
    done,
    'a package request': { type: 'package', id: 2, file: 'numpy-2.2.5-cp313-cp313-pyodide_2025_0_wasm32.whl' },
    'done that left work running': { ...done, leftover: true },
    'done that tampered with the harness': { ...done, result: null, tampered: 'builtins.repr was replaced' },
    'done that reached the buffer ceiling': { ...done, result: null, error: { text: 'RangeError', dropped: 0 }, bufferCeiling: true },
    'done with a missing package': { ...done, result: null, error: { text: 'Traceback', dropped: 2 }, missing: { module: 'sklearn', package: 'scikit-learn' } },
  };
  for (const [name, message] of Object.entries(valid)) it(`accepts ${name}`, () => expect(readWorkerMessage(message)).toEqual(message));

  const invalid: Record<string, unknown> = {
    null: null,
    'a string': 'done',
    'an unknown type': { type: 'eval', code: '1' },
    'output to another stream': { type: 'output', id: 1, stream: 'stdin', text: 'x' },
    'a fractional id': { type: 'output', id: 1.5, stream: 'stdout', text: 'x' },
    'a negative drop count': { ...done, dropped: { stdout: -1, stderr: 0 } },
    'a result that is not capped text': { ...done, result: '42' },
    'a missing fatal flag': { ...done, fatal: undefined },
    'a missing leftover flag': { ...done, leftover: undefined },
    'a missing tampered field': { ...done, tampered: undefined },
    'a tampered field that is not text': { ...done, tampered: true },
    'a missing buffer ceiling flag': { ...done, bufferCeiling: undefined },
    'a package request without a file name': { type: 'package', id: 2, file: 7 },
    'a malformed missing package': { ...done, missing: { module: 'x' } },
    'an array dressed as a message': Object.assign([], { type: 'ready', startMs: 1 }),
    'a done without its result': Object.fromEntries(Object.entries(done).filter(([key]) => key !== 'result')),
  };
  for (const [name, message] of Object.entries(invalid)) it(`rejects ${name}`, () => expect(readWorkerMessage(message)).toBeNull());

  it('copies only the known fields', () => {
    expect(readWorkerMessage({ type: 'ready', startMs: 1, extra: { big: 'x' } })).toEqual({ type: 'ready', startMs: 1 });
  });
});

describe('readFrameMessage', () => {
  it('accepts a worker error and nothing else', () => {
    expect(readFrameMessage({ type: 'worker-error', message: 'boom' })).toEqual({ type: 'worker-error', message: 'boom' });
    expect(readFrameMessage({ type: 'worker-error' })).toBeNull();
    expect(readFrameMessage({ type: 'done', message: 'x' })).toBeNull();
  });
});
