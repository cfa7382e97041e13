import { expect, it } from 'vitest';
import { EngineError } from '../engine/errors';
import { plainError } from './error-text';

it.each([
  ['context_overflow', /no longer fits/, /new chat/],
  ['shader_f16_unsupported', /16-bit/, /q4f32/],
  ['webgpu_unavailable', /WebGPU/, /test model/],
  ['tool_mode_unsupported', /not trained to use tools/, /Turn tools off/],
  ['insufficient_memory', /out of memory/, /smaller model/],
  ['worker_failed', /could not start/, /Content-Security-Policy/],
  ['server_unreachable', /cannot be reached/, /server is running/],
  ['server_error', /answered with an error/, /server’s own words/],
])('%s has plain words and advice', (code, title, advice) => {
  const p = plainError({ name: 'EngineError', code, message: 'raw detail' });
  expect(p.title).toMatch(title);
  expect(p.advice).toMatch(advice);
  expect(p.detail).toBe('raw detail');
});

it('an EngineError instance, an abort, and anything else', () => {
  expect(plainError(new EngineError('device_lost', 'x')).code).toBe('device_lost');
  expect(plainError(new DOMException('stop', 'AbortError')).title).toBe('Stopped.');
  const odd = plainError('boom');
  expect(odd).toMatchObject({ code: 'internal', detail: 'boom' });
  expect(plainError({ code: 'never_heard_of_it', message: 'm' }).title).toMatch(/Something went wrong/);
});
