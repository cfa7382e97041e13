import { describe, expect, it } from 'vitest';
import { SeededRandom } from './seeded-random';

describe('SeededRandom', () => {
  it('is a pure function of the seed', () => {
    const a = new SeededRandom(42);
    const b = new SeededRandom(42);
    const c = new SeededRandom(43);
    const sa = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(sa);
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(sa);
  });

  it('matches mulberry32 golden values', () => {
    const r = new SeededRandom(1);
    expect(Array.from({ length: 3 }, () => Math.round(r.next() * 4294967296))).toEqual([2693262067, 11749833, 2265367787]);
  });

  it('draws uniforms in [0, 1) and normals with mean 0, variance 1', () => {
    const r = new SeededRandom(7);
    const u = Array.from({ length: 20000 }, () => r.next());
    expect(Math.min(...u)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...u)).toBeLessThan(1);
    const n = r.normalArray(20000, 2, 1);
    const mean = n.reduce((s, v) => s + v, 0) / n.length;
    const variance = n.reduce((s, v) => s + (v - mean) ** 2, 0) / n.length;
    expect(mean).toBeCloseTo(1, 1);
    expect(variance).toBeGreaterThan(3.8);
    expect(variance).toBeLessThan(4.2);
  });
});
