import { describe, expect, it } from 'vitest';
import { halfToFloat } from '../setup/micro-model';
import { float16Bytes, floatToHalf } from './float16';

describe('floatToHalf', () => {
  it.each([
    ['zero', 0, 0x0000],
    ['negative zero', -0, 0x8000],
    ['one', 1, 0x3c00],
    ['minus two', -2, 0xc000],
    ['largest half', 65504, 0x7bff],
    ['rounds up to infinity', 65520, 0x7c00],
    ['just below the rounding point', 65519, 0x7bff],
    ['infinity', Infinity, 0x7c00],
    ['minus infinity', -Infinity, 0xfc00],
    ['smallest subnormal', 2 ** -24, 0x0001],
    ['half the smallest subnormal ties to even (0)', 2 ** -25, 0x0000],
    ['1.5 × smallest subnormal ties to even (2)', 1.5 * 2 ** -24, 0x0002],
    ['largest subnormal', 1023 * 2 ** -24, 0x03ff],
    ['smallest normal', 2 ** -14, 0x0400],
    ['tie between 1 and 1+2^-10 goes to even (1)', 1 + 2 ** -11, 0x3c00],
    ['tie between 1+2^-10 and 1+2^-9 goes to even (1+2^-9)', 1 + 3 * 2 ** -11, 0x3c02],
    ['above the tie rounds up', 1 + 2 ** -11 + 2 ** -20, 0x3c01],
    ['underflow', 1e-9, 0x0000],
  ])('%s', (_, value, bits) => {
    expect(floatToHalf(value)).toBe(bits);
  });

  it('NaN stays NaN', () => {
    expect(Number.isNaN(halfToFloat(floatToHalf(Number.NaN)))).toBe(true);
  });

  it('every half converts back to itself', () => {
    for (let h = 0; h < 0x10000; h++) {
      const f = halfToFloat(h);
      if (Number.isNaN(f)) continue;
      expect(floatToHalf(f)).toBe(h);
    }
  });

  it('rounds to the nearest half (checked against the neighbours)', () => {
    for (const v of [0.1, -3.14159, 1234.567, 6.1e-5, -7.7e-7, 0.333333]) {
      const h = floatToHalf(v);
      const err = Math.abs(halfToFloat(h) - v);
      expect(err).toBeLessThanOrEqual(Math.abs(halfToFloat(h + 1) - v));
      expect(err).toBeLessThanOrEqual(Math.abs(halfToFloat(h - 1) - v));
    }
  });

  it('writes little-endian bytes', () => {
    expect([...float16Bytes([1, -2])]).toEqual([0x00, 0x3c, 0x00, 0xc0]);
  });
});
