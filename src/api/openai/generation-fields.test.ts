import { describe, expect, it } from 'vitest';
import { readGenerationFields } from './generation-fields';

/** The 400 a body gets: its param and message. */
function refusal(body: Record<string, unknown>): { param?: string; message: string } {
  try {
    readGenerationFields(body);
  } catch (e) {
    const error = e as { param?: string; message: string };
    return { param: error.param, message: error.message };
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
}

describe('the generation fields of a request', () => {
  it('reads each field, null as absent, top_k -1 as off and repeat_last_n -1 as every id', () => {
    const read = readGenerationFields({ temperature: 0.5, top_k: -1, repeat_last_n: -1, logit_bias: { '007': -5 }, stop: 'END', seed: null, stream: true, stream_options: { include_usage: true } });
    expect(read).toMatchObject({ sampling: { temperature: 0.5, topK: 0, penaltyWindow: Number.MAX_SAFE_INTEGER, logitBias: { 7: -5 } }, stop: ['END'], stream: true, includeUsage: true, choices: 1 });
    expect(read.sampling.seed).toBeUndefined();
  });

  it('a number out of range names the range and the value; a wrong type names the range only', () => {
    expect(refusal({ top_p: 0 })).toEqual({ param: 'top_p', message: 'top_p: expected a number above 0 and at most 1, got 0' });
    expect(refusal({ n: 1.5 })).toEqual({ param: 'n', message: 'n: expected an integer at least 1 and at most 8' });
    expect(refusal({ temperature: '1' })).toEqual({ param: 'temperature', message: 'temperature: expected a number at least 0 and at most 2' });
  });

  it('logit_bias names the entry; a key like constructor or __proto__ is refused, not skipped', () => {
    expect(refusal({ logit_bias: { '5': 101 } })).toEqual({ param: 'logit_bias.5', message: 'logit_bias.5: expected a bias from -100 to 100' });
    expect(refusal({ logit_bias: { constructor: 1 } }).param).toBe('logit_bias.constructor');
    expect(refusal({ logit_bias: JSON.parse('{"__proto__": 1}') as object }).param).toBe('logit_bias.__proto__');
    expect(refusal({ logit_bias: [] })).toEqual({ param: 'logit_bias', message: 'logit_bias: expected an object' });
  });

  it('stop is named as a whole whichever string is wrong; stop_token_ids names the id; stream_options refuses unknown keys first', () => {
    expect(refusal({ stop: ['a', ''] })).toEqual({ param: 'stop', message: 'stop: expected a non-empty string or an array of them' });
    expect(refusal({ stop: ['a', 'b', 'c', 'd', 'e'] })).toEqual({ param: 'stop', message: 'stop: at most 4 stop strings' });
    expect(refusal({ stop_token_ids: [128009, 13] }).param).toBe('stop_token_ids[1]');
    expect(refusal({ stream: true, stream_options: { other: 1, include_usage: 'yes' } })).toEqual({ param: 'stream_options.other', message: 'stream_options.other is not supported: this server does not implement it' });
    expect(refusal({ stream: true, stream_options: { include_usage: 'yes' } })).toEqual({ param: 'stream_options.include_usage', message: 'stream_options.include_usage: expected true or false' });
    expect(refusal({ stream_options: {} })).toEqual({ param: 'stream_options', message: 'stream_options: only with "stream": true' });
  });
});
