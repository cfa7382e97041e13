import { describe, expect, it } from 'vitest';
import { createOutputCap } from './output-cap';

describe('createOutputCap', () => {
  it('passes text through until the limit, then only counts', () => {
    const cap = createOutputCap(5);
    expect([cap.take('ab'), cap.take('cdef'), cap.take('gh'), cap.take('')]).toEqual(['ab', 'cde', '', '']);
    expect(cap.dropped()).toBe(3);
  });

  it('never splits a surrogate pair (the pair counts as dropped)', () => {
    const cap = createOutputCap(2);
    expect(cap.take('a😀')).toBe('a');
    expect(cap.dropped()).toBe(2);
    expect(cap.take('b')).toBe('');
    expect(cap.dropped()).toBe(3);
  });

  it('a zero limit keeps nothing', () => {
    const cap = createOutputCap(0);
    expect(cap.take('abc')).toBe('');
    expect(cap.dropped()).toBe(3);
  });

  it('is self-contained: its source alone rebuilds it (the worker receives it as text)', () => {
    const rebuilt = new Function(`return (${createOutputCap.toString()})`)() as typeof createOutputCap;
    const cap = rebuilt(3);
    expect(cap.take('abcd')).toBe('abc');
    expect(cap.dropped()).toBe(1);
  });
});
