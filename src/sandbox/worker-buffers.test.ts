import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { limitBuffers } from './worker-buffers';

const MiB = 2 ** 20;

/** A fresh realm with the ceiling installed, as the worker does; returns a function that runs code there. */
function realm(limit: number) {
  const context: Record<string, unknown> = {};
  runInNewContext(`globalThis.ceiling = (${limitBuffers.toString()})(${limit});`, context);
  const ceiling = context.ceiling as ReturnType<typeof limitBuffers>;
  return { run: (code: string): unknown => runInNewContext(code, context), ceiling };
}

describe('limitBuffers', () => {
  it('counts every way to a new buffer and refuses the one past the ceiling', () => {
    const { run, ceiling } = realm(8 * MiB);
    run('new ArrayBuffer(MiB)'.replace('MiB', String(MiB)));
    expect(ceiling.held()).toBe(MiB);
    run(`new Float64Array(${MiB / 8})`);
    expect(ceiling.held()).toBe(2 * MiB);
    run(`globalThis.base = new Uint8Array(${MiB})`);
    run('base.slice(); Uint8Array.from(base); base.map((x) => x)');
    expect(ceiling.held()).toBe(6 * MiB);
    // Views on an existing buffer cost nothing.
    run('new Uint8Array(base.buffer); new DataView(base.buffer); base.subarray(10)');
    expect(ceiling.held()).toBe(6 * MiB);
    expect(ceiling.reached()).toBe(false);
    expect(() => run(`new ArrayBuffer(${3 * MiB})`)).toThrow(/the sandbox refused 3 MiB more of JS buffers: 6 MiB are held and its ceiling is 8 MiB/);
    expect(ceiling.reached()).toBe(true);
    expect(ceiling.reached()).toBe(false); // reported once
    expect(ceiling.held()).toBe(6 * MiB); // the refused one is not counted
  });

  it('cannot be passed by the constructor found elsewhere, a copy from an iterable, resizing, or a wasm memory', () => {
    const { run, ceiling } = realm(4 * MiB);
    expect(run('new Uint8Array(1).constructor === Uint8Array && new ArrayBuffer(1).constructor === ArrayBuffer')).toBe(true);
    expect(() => run(`new (new Uint8Array(1).constructor)(${5 * MiB})`)).toThrow(/the sandbox refused/);
    expect(() => run(`Reflect.construct(ArrayBuffer, [${5 * MiB}], Object)`)).toThrow(/the sandbox refused/);
    expect(() => run(`new Uint8Array({ length: ${5 * MiB} })`)).toThrow(/the sandbox refused/);
    expect(() => run(`new Uint8Array((function* () { for (let i = 0; i < ${5 * MiB}; i++) yield 0; })())`)).toThrow(/the sandbox refused/);
    run(`globalThis.grows = new ArrayBuffer(0, { maxByteLength: ${8 * MiB} })`);
    expect(() => run(`grows.resize(${5 * MiB})`)).toThrow(/the sandbox refused/);
    run(`grows.resize(${MiB})`);
    expect(ceiling.held()).toBe(MiB + 3); // and the three 1-byte buffers above
    expect(() => run('new WebAssembly.Memory({ initial: 80 })')).toThrow(/the sandbox refused/); // 80 pages = 5 MiB
    run('globalThis.memory = new WebAssembly.Memory({ initial: 16, maximum: 100 })');
    expect(ceiling.held()).toBe(2 * MiB + 3);
    expect(() => run('memory.grow(32)')).toThrow(/the sandbox refused/);
    expect(run('memory.buffer.byteLength')).toBe(MiB);
  });

  it('leaves the globals it replaced fixed', () => {
    const { run } = realm(MiB);
    expect(() => run('"use strict"; globalThis.ArrayBuffer = function () {}')).toThrow(/read only/);
    expect(() => run('Object.defineProperty(Uint8Array.prototype, "constructor", { value: 1 })')).toThrow(/Cannot redefine/);
  });
});
