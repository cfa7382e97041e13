/**
 * The ceiling on JS buffers in the Pyodide worker. Model code can allocate JS memory outside the
 * WASM heap (`js.ArrayBuffer.new(2**30)` in a loop reached about 4 GB before its timeout); this
 * counts the bytes held by every ArrayBuffer, SharedArrayBuffer, typed array, Blob and
 * WebAssembly.Memory created after it is installed, and refuses one that would go past the limit
 * with a RangeError. Self-contained (shipped with Function.prototype.toString, worker-source.ts).
 *
 * Invariants:
 * - The constructors are replaced by proxies behind non-configurable globals and prototype
 *   `constructor` properties, so every way to them (the global, `x.constructor`, species: slice,
 *   map, from, of) goes through the count; ArrayBuffer's transfer and resize, and grow on a memory
 *   created here, are counted too. Views on an existing buffer cost nothing.
 * - A buffer counts until it is garbage-collected (a FinalizationRegistry captured before the
 *   lockdown removes it); collection is only seen between tasks, so a run that keeps allocating and
 *   dropping buffers without yielding counts them all.
 * - `reached()` says whether a refusal happened since the last call: the worker then has the host
 *   replace the interpreter, which frees everything the code held.
 * - Not counted: memory in the WASM heap (bounded by wasm32's 4 GiB and Pyodide's MemoryError),
 *   strings, arrays and objects (V8's heap limit), memories that a WebAssembly module declares itself.
 */
export interface BufferCeiling {
  /** Bytes held now by buffers created since the ceiling was installed. */
  held(): number;
  /** Whether an allocation was refused since the last call. */
  reached(): boolean;
}

export function limitBuffers(limit: number): BufferCeiling {
  const g = globalThis as unknown as Record<string, unknown>;
  const { apply, construct, defineProperty, getOwnPropertyDescriptor } = Reflect;
  const Registry = FinalizationRegistry;
  const NativeProxy = Proxy;
  type Holder = { bytes: number };
  let held = 0;
  let refused = false;
  const holders = new WeakMap<object, Holder>();
  const registry = new Registry<Holder>((holder) => {
    held -= holder.bytes;
  });
  const mib = (bytes: number) => `${Math.round((bytes / 2 ** 20) * 10) / 10} MiB`;
  const charge = (bytes: number) => {
    if (!(bytes > 0)) return;
    if (held + bytes > limit) {
      refused = true;
      throw new RangeError(
        `the sandbox refused ${mib(bytes)} more of JS buffers: ${mib(held)} are held and its ceiling is ${mib(limit)} (ArrayBuffer, typed arrays, Blob, WebAssembly.Memory)`,
      );
    }
    held += bytes;
  };
  const hold = (object: object, bytes: number) => {
    const holder = { bytes };
    holders.set(object, holder);
    registry.register(object, holder);
  };
  const getter = (target: unknown, name: string) => {
    const proto = typeof target === 'function' ? (target as { prototype: object }).prototype : undefined;
    return proto ? getOwnPropertyDescriptor(proto, name)?.get : undefined;
  };
  const abLength = getter(g.ArrayBuffer, 'byteLength')!;
  const sabLength = getter(g.SharedArrayBuffer, 'byteLength');
  const blobSize = getter(g.Blob, 'size')!;
  const lengths = sabLength ? [abLength, sabLength] : [abLength];
  const isBuffer = (x: unknown) => {
    for (const length of lengths) {
      try {
        apply(length, x, []);
        return true;
      } catch {
        // not this kind of buffer
      }
    }
    return false;
  };
  const toLength = (x: unknown) => {
    const n = Math.trunc(Number(x));
    return Number.isFinite(n) && n > 0 ? n : 0;
  };
  const fixed = (target: object, name: string | symbol, value: unknown) =>
    defineProperty(target, name, { value, writable: false, configurable: false, enumerable: false });

  /** Replaces a global constructor by a counting proxy: `before` is charged up front, `after` once built. */
  const wrap = (holder: Record<string, unknown>, name: string, before: (args: unknown[]) => number, after: (made: object, args: unknown[]) => number) => {
    const target = holder[name] as (new (...args: unknown[]) => object) | undefined;
    if (typeof target !== 'function') return;
    const proxy: object = new NativeProxy(target, {
      construct(t, args, newTarget) {
        const upFront = before(args);
        charge(upFront);
        let made: object;
        try {
          made = construct(t, args, newTarget === proxy ? t : newTarget) as object;
        } catch (e) {
          held -= upFront;
          throw e;
        }
        const later = after(made, args);
        try {
          charge(later);
        } catch (e) {
          held -= upFront;
          throw e;
        }
        // A view holds no bytes of its own: nothing to release later.
        if (upFront + later > 0) hold(made, upFront + later);
        return made;
      },
    });
    fixed(target.prototype, 'constructor', proxy);
    fixed(holder, name, proxy);
  };

  wrap(g, 'ArrayBuffer', (args) => toLength(args[0]), () => 0);
  wrap(g, 'SharedArrayBuffer', (args) => toLength(args[0]), () => 0);
  const typedArrays = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float16Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array'];
  for (const name of typedArrays) {
    const ctor = g[name] as ((new () => object) & { BYTES_PER_ELEMENT: number }) | undefined;
    if (typeof ctor !== 'function') continue;
    const isObject = (x: unknown) => (typeof x === 'object' || typeof x === 'function') && x !== null;
    const byteLength = getter(Object.getPrototypeOf(ctor) as unknown, 'byteLength')!;
    wrap(
      g,
      name,
      (args) => (isObject(args[0]) ? 0 : toLength(args[0]) * ctor.BYTES_PER_ELEMENT),
      // Copied from an array-like or iterable: its size is known once built. A view costs nothing.
      (made, args) => (isObject(args[0]) && !isBuffer(args[0]) ? (apply(byteLength, made, []) as number) : 0),
    );
  }
  wrap(g, 'Blob', () => 0, (made) => apply(blobSize, made, []) as number);
  const wasm = g.WebAssembly as Record<string, unknown> | undefined;
  const memoryProto = (wasm?.Memory as { prototype?: Record<string, unknown> } | undefined)?.prototype;
  const memoryBuffer = memoryProto && getOwnPropertyDescriptor(memoryProto, 'buffer')?.get;
  if (wasm && memoryProto && memoryBuffer) {
    wrap(wasm, 'Memory', () => 0, (made) => apply(abLength, apply(memoryBuffer, made, []), []) as number);
    const grow = memoryProto.grow as (pages: number) => number;
    // Only memories created here: Pyodide's own heap grows through this method as well.
    fixed(memoryProto, 'grow', function (this: object, pages: number) {
      const holder = holders.get(this);
      const bytes = holder ? toLength(pages) * 65536 : 0;
      charge(bytes);
      try {
        const result = apply(grow, this, [pages]);
        if (holder) holder.bytes += bytes;
        return result;
      } catch (e) {
        held -= bytes;
        throw e;
      }
    });
  }
  const abProto = (g.ArrayBuffer as { prototype: Record<string, unknown> }).prototype;
  /**
   * A method that changes a buffer's size: growth is charged before it happens, shrinking released
   * after; transfer moves the count to the new buffer (the old one is detached).
   */
  const resizing = (name: string, newLength: (buffer: object, args: unknown[]) => number) => {
    const method = abProto[name] as ((...args: unknown[]) => unknown) | undefined;
    if (typeof method !== 'function') return;
    fixed(abProto, name, function (this: object, ...args: unknown[]) {
      const before = holders.get(this)?.bytes ?? 0;
      const after = newLength(this, args);
      charge(after - before);
      let result: unknown;
      try {
        result = apply(method, this, args);
      } catch (e) {
        held -= Math.max(after - before, 0);
        throw e;
      }
      const holder = holders.get(this);
      if (holder) holder.bytes = name === 'resize' ? after : 0;
      if (name !== 'resize' && typeof result === 'object' && result !== null) hold(result, after);
      else if (!holder && name === 'resize') hold(this, after);
      if (after < before && holder) held -= before - after;
      return result;
    });
  };
  const currentLength = (buffer: object) => apply(abLength, buffer, []) as number;
  resizing('resize', (_buffer, args) => toLength(args[0]));
  resizing('transfer', (buffer, args) => (args[0] === undefined ? currentLength(buffer) : toLength(args[0])));
  resizing('transferToFixedLength', (buffer, args) => (args[0] === undefined ? currentLength(buffer) : toLength(args[0])));

  return {
    held: () => held,
    reached() {
      const was = refused;
      refused = false;
      return was;
    },
  };
}
