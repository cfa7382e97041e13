/**
 * Deterministic pseudo-random numbers from a 32-bit seed (mulberry32). `next()` is bit-identical on every
 * JS engine (32-bit integer arithmetic only); `normal()` also goes through Math.log/sqrt/cos, which are
 * deterministic per engine, so weights are generated once, in Node, and shipped as a file.
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1), 32 bits of resolution. */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Standard normal via Box–Muller (one draw per call; the pair's second value is discarded for simplicity). */
  normal(): number {
    const u = 1 - this.next(); // (0, 1]: log is finite
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** A Float32Array of `n` normals times `std`, plus `mean`. */
  normalArray(n: number, std: number, mean = 0): Float32Array {
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = mean + std * this.normal();
    return out;
  }
}
