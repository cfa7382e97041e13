import { describe, expect, it } from 'vitest';
import { FormatError } from '../format/errors';
import { abortError, deserializeError, EngineError, serializeError } from './errors';

describe('errors across the boundary', () => {
  const cases: Record<string, { error: unknown; serialized: { name: string; code: string } }> = {
    'an engine error keeps its code': { error: new EngineError('context_overflow', 'too long'), serialized: { name: 'EngineError', code: 'context_overflow' } },
    'a format error keeps its own code (turn order)': { error: new FormatError('turn_order', 'x'), serialized: { name: 'FormatError', code: 'turn_order' } },
    'a format error keeps its own code (ids mismatch)': { error: new FormatError('ids_mismatch', 'x'), serialized: { name: 'FormatError', code: 'ids_mismatch' } },
    'an abort is an AbortError': { error: abortError('stop'), serialized: { name: 'AbortError', code: 'aborted' } },
    'a RangeError (bad sampling) is an invalid request': { error: new RangeError('sampling.topP must be in (0, 1]'), serialized: { name: 'EngineError', code: 'invalid_request' } },
    'anything else is internal, with its message': { error: new TypeError('boom'), serialized: { name: 'EngineError', code: 'internal' } },
  };
  for (const [name, { error, serialized }] of Object.entries(cases)) {
    it(name, () => {
      const s = serializeError(error);
      expect(s).toMatchObject(serialized);
      expect(s.message).toBe((error as Error).message);
      const back = deserializeError(s);
      expect(back).toMatchObject({ name: serialized.name, message: s.message });
      if (serialized.name !== 'AbortError') expect((back as { code?: string }).code).toBe(serialized.code);
    });
  }
});
