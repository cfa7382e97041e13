/** float32 → IEEE 754 half bits, rounding to nearest, ties to even (as numpy's astype(float16)). */
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function floatToHalf(value: number): number {
  f32[0] = value;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  const mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // inf, NaN (quiet)
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow → inf
  if (e <= 0) {
    if (e < -10) return sign; // underflow → ±0
    // Subnormal half: the implicit bit joins the mantissa, shifted right by 14 - e, rounded to even.
    const m = mant | 0x800000;
    const shift = 14 - e;
    const half = m >>> shift;
    const rem = m & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    return sign | (half + (rem > mid || (rem === mid && (half & 1)) ? 1 : 0));
  }
  const half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  // A carry out of the mantissa correctly bumps the exponent (up to inf).
  return sign | (half + (rem > 0x1000 || (rem === 0x1000 && (half & 1)) ? 1 : 0));
}

/** Little-endian half bytes of `values`. */
export function float16Bytes(values: ArrayLike<number>): Uint8Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = floatToHalf(values[i]!);
  return new Uint8Array(out.buffer);
}

/** Little-endian float32 bytes of `values` (a copy). */
export function float32Bytes(values: ArrayLike<number>): Uint8Array {
  return new Uint8Array(Float32Array.from(values).buffer);
}
