import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { fillFrozenRows, FROZEN_ROWS_BELOW, frozenSign } from './frozen-rows';

const PY = 'models/micro-llama/train/frozen_rows.py';

describe('frozen rows', () => {
  it('are bit-identical to the training side (frozen_rows.py) for ids across the vocabulary', () => {
    const ids = [0, 1, 2, 255, 1001, 30_000, 65_535, 65_536, 99_999, 127_999];
    const out = execFileSync('python3', [PY, '128', ...ids.map(String)], { encoding: 'utf8' }).trim().split('\n');
    expect(out).toHaveLength(ids.length);
    ids.forEach((id, k) => {
      const ours = Array.from({ length: 128 }, (_, d) => (frozenSign(id, d) > 0 ? '+' : '-')).join('');
      expect(ours).toBe(out[k]);
    });
  });

  it('are balanced and distinct between ids', () => {
    const row = (id: number) => Array.from({ length: 128 }, (_, d) => frozenSign(id, d));
    const a = row(4242);
    const b = row(4243);
    const sum = a.reduce((s, x) => s + x, 0);
    const dot = a.reduce((s, x, d) => s + x * b[d]!, 0);
    expect(Math.abs(sum)).toBeLessThan(48);
    expect(Math.abs(dot)).toBeLessThan(64);
  });

  it('fill every ordinary id without a learned row and leave learned rows and special tokens alone', () => {
    const H = 4;
    const vocab = FROZEN_ROWS_BELOW + 8;
    const embed = new Float32Array(vocab * H);
    embed.fill(7, 5 * H, 6 * H);
    fillFrozenRows(embed, H, new Set([5, FROZEN_ROWS_BELOW + 1]), 0.5);
    expect([...embed.subarray(5 * H, 6 * H)]).toEqual([7, 7, 7, 7]);
    expect([...embed.subarray(6 * H, 7 * H)]).toEqual([0, 1, 2, 3].map((d) => 0.5 * frozenSign(6, d)));
    expect(embed.subarray(FROZEN_ROWS_BELOW * H).every((x) => x === 0)).toBe(true);
  });

  it('fill only their first `dims` dimensions when told, zero above, as train.py --frozen-dims does', () => {
    const H = 4;
    const embed = new Float32Array(16 * H);
    fillFrozenRows(embed, H, new Set(), 0.25, 2);
    for (const id of [0, 9, 15]) {
      expect([...embed.subarray(id * H, (id + 1) * H)]).toEqual([0.25 * frozenSign(id, 0), 0.25 * frozenSign(id, 1), 0, 0]);
    }
  });

  it('fill dimensions [offset, offset + dims) with the signs of dimensions 0.. when given an offset (format /3), zero elsewhere', () => {
    const H = 6;
    const embed = new Float32Array(16 * H).fill(3);
    fillFrozenRows(embed, H, new Set([4]), 0.5, 2, 3);
    for (const id of [0, 9, 15]) {
      expect([...embed.subarray(id * H, (id + 1) * H)]).toEqual([0, 0, 0, 0.5 * frozenSign(id, 0), 0.5 * frozenSign(id, 1), 0]);
    }
    expect([...embed.subarray(4 * H, 5 * H)]).toEqual([3, 3, 3, 3, 3, 3]);
  });

  it('refuse dimensions that do not fit the hidden size', () => {
    expect(() => fillFrozenRows(new Float32Array(8), 4, new Set(), 1, 2, 3)).toThrow(/do not fit/);
    expect(() => fillFrozenRows(new Float32Array(8), 4, new Set(), 1, 0)).toThrow(/do not fit/);
  });
});
