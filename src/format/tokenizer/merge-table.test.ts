import { describe, expect, it } from 'vitest';
import { MergeTable } from './merge-table';

describe('MergeTable', () => {
  it('finds every stored pair and nothing else', () => {
    const table = new MergeTable(5000);
    const expected = new Map<string, number>();
    for (let rank = 0; rank < 5000; rank++) {
      const left = (rank * 7919) % 128000;
      const right = (rank * 104729 + 13) % 128000;
      table.add(left, right, rank);
      if (!expected.has(`${left},${right}`)) expected.set(`${left},${right}`, rank);
    }
    for (const [key, rank] of expected) {
      const [left, right] = key.split(',').map(Number) as [number, number];
      expect(table.rank(left, right)).toBe(rank);
    }
    expect(table.rank(1, 2)).toBe(-1);
    expect(table.rank(0, 0)).toBe(-1);
  });

  it('keeps the first rank of a pair (pairs are ordered)', () => {
    const table = new MergeTable(3);
    table.add(10, 20, 5);
    table.add(10, 20, 9);
    table.add(20, 10, 7);
    expect(table.rank(10, 20)).toBe(5);
    expect(table.rank(20, 10)).toBe(7);
  });

  it('refuses more pairs than its capacity', () => {
    const table = new MergeTable(2);
    table.add(1, 1, 0);
    table.add(2, 2, 1);
    expect(() => table.add(3, 3, 2)).toThrow(RangeError);
  });
});
