import { describe, expect, it } from 'vitest';
import type { Message } from '../format/types';
import { TranscriptMemory } from './transcript-memory';

const emitted = (raw: string): Message => ({ role: 'assistant', content: raw, raw, ids: [1, 2], stop: 'eot', toolCalls: [] });
const call = (args: string) => [{ id: 'call_1', name: 'f', arguments: args }];

describe('TranscriptMemory', () => {
  it('recalls what was remembered under the same content and calls, as a copy', () => {
    const memory = new TranscriptMemory();
    memory.remember('', call('{"a": 1}'), emitted('{"name": "f", "parameters": {"a": 1}}'));
    const recalled = memory.recall('', call('{"a": 1}'))!;
    expect(recalled.raw).toBe('{"name": "f", "parameters": {"a": 1}}');
    recalled.ids!.push(3);
    expect(memory.recall('', call('{"a": 1}'))!.ids).toEqual([1, 2]);
  });

  it('compares arguments as JSON (an SDK that rewrote them still matches), anything else exactly', () => {
    const memory = new TranscriptMemory();
    memory.remember('', call('{"a": 1, "b": [2]}'), emitted('x'));
    expect(memory.recall('', call('{"a":1,"b":[2]}'))).toBeDefined();
    expect(memory.recall('', call('{"b": [2], "a": 1}'))).toBeUndefined();
    expect(memory.recall('', call('{"a": 2, "b": [2]}'))).toBeUndefined();
    expect(memory.recall('edited', call('{"a": 1, "b": [2]}'))).toBeUndefined();
    expect(memory.recall('', [{ id: 'call_2', name: 'f', arguments: '{"a": 1, "b": [2]}' }])).toBeUndefined();
  });

  it('an unreadable call matches whatever arguments come back (ai 7 sends {} for them)', () => {
    const memory = new TranscriptMemory();
    memory.remember('', [{ id: 'call_1', name: 'f', arguments: '{"city": }', unreadable: true }], emitted('{"name": "f", "parameters": {"city": }'));
    expect(memory.recall('', call('{}'))!.raw).toBe('{"name": "f", "parameters": {"city": }');
    expect(memory.recall('', [{ id: 'call_1', name: 'g', arguments: '{}' }])).toBeUndefined();
  });

  it('forgets the least recently used entry past its capacity', () => {
    const memory = new TranscriptMemory(2);
    memory.remember('one', [], emitted('one'));
    memory.remember('two', [], emitted('two'));
    memory.recall('one', []);
    memory.remember('three', [], emitted('three'));
    expect(memory.size).toBe(2);
    expect(memory.recall('two', [])).toBeUndefined();
    expect(memory.recall('one', [])).toBeDefined();
    expect(memory.recall('three', [])).toBeDefined();
  });
});
