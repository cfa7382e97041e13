/**
 * The last check on finished values: a JSON reply against its format, a custom call's arguments
 * against its tool's schema. A numeric bound the grammar does not always hold (minimum on an integer:
 * measured) is caught here, as a 500 naming what is wrong.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error';
import { checkCallArguments, checkReply } from './response-format';

const COUNT = { type: 'object', properties: { count: { type: 'integer', minimum: 2 } }, required: ['count'] };
const tools = [{ type: 'function' as const, function: { name: 'pick', parameters: COUNT } }];

describe('the final check of a reply in a set format', () => {
  const cases: Record<string, [string, Parameters<typeof checkReply>[1], RegExp | null]> = {
    'valid JSON of its schema': ['{"count": 3}', { type: 'json_schema', schema: COUNT }, null],
    'a bound the grammar let through': ['{"count": 1}', { type: 'json_schema', schema: COUNT }, /\/count .*2/],
    'not JSON': ['{"count": ', { type: 'json_schema', schema: COUNT }, /not JSON/],
    'an array for json_object': ['[1]', { type: 'json_object' }, /not a JSON object/],
    'no format': ['anything', undefined, null],
  };
  for (const [name, [content, format, error]] of Object.entries(cases)) {
    it(name, () => {
      if (!error) return expect(() => checkReply(content, format)).not.toThrow();
      expect(() => checkReply(content, format)).toThrow(error);
      expect(() => checkReply(content, format)).toThrow(ApiError);
    });
  }

  it("a custom call's arguments against its tool's schema; built-in calls and unknown names pass", () => {
    expect(() => checkCallArguments([{ kind: 'custom', name: 'pick', arguments: { count: 2 } }], tools)).not.toThrow();
    expect(() => checkCallArguments([{ kind: 'custom', name: 'pick', arguments: { count: 1 } }], tools)).toThrow(/the call of pick .*\/count/);
    expect(() => checkCallArguments([{ kind: 'builtin', name: 'brave_search', arguments: { query: 'x' } }], tools)).not.toThrow();
  });
});
