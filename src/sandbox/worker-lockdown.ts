/**
 * What the Pyodide worker takes away from model code, and how it sees work model code leaves behind.
 * Both functions run in the worker before any model code exists; their sources are shipped with
 * Function.prototype.toString (worker-source.ts), so each is self-contained: no imports, no
 * module-level names, no reference to the other.
 *
 * Invariants:
 * - Every way for code to run later is either gone or counted: MessagePort deliveries (Pyodide's
 *   own scheduler is one) are counted from before Pyodide loads; setTimeout/setInterval are tracked
 *   until they fire or are cleared; the rest — nested and shared workers, BroadcastChannel,
 *   EventSource (it reconnects by itself), FinalizationRegistry (callbacks at GC),
 *   requestAnimationFrame, scheduler.postTask, Atomics.waitAsync — is removed.
 * - The GPU and canvases are removed too (navigator.gpu, OffscreenCanvas and its WebGL/2D contexts).
 * - The originals live only in these closures, behind non-configurable properties: model code
 *   cannot get an untracked timer or an uncounted port back.
 */

/** Counts message deliveries on every MessagePort from now on; returns the counter. */
export function watchPortDeliveries(): () => number {
  const apply = Reflect.apply;
  let deliveries = 0;
  const counted = new WeakMap<object, unknown>();
  const counting = (listener: unknown): unknown => {
    if (typeof listener !== 'function' && (typeof listener !== 'object' || listener === null)) return listener;
    let wrapper = counted.get(listener);
    if (!wrapper) {
      wrapper = function (this: unknown, event: Event) {
        deliveries++;
        const l = listener as { handleEvent?: (e: Event) => unknown };
        return typeof listener === 'function' ? apply(listener, this, [event]) : apply(l.handleEvent!, l, [event]);
      };
      counted.set(listener, wrapper);
    }
    return wrapper;
  };
  const proto = MessagePort.prototype;
  const onmessage = Object.getOwnPropertyDescriptor(proto, 'onmessage')!;
  Object.defineProperty(proto, 'onmessage', {
    configurable: false,
    enumerable: onmessage.enumerable ?? true,
    get(this: MessagePort) {
      return apply(onmessage.get!, this, []);
    },
    set(this: MessagePort, listener: unknown) {
      apply(onmessage.set!, this, [counting(listener)]);
    },
  });
  const targetProto = EventTarget.prototype;
  const add = targetProto.addEventListener;
  const remove = targetProto.removeEventListener;
  const isPortMessage = (target: unknown, type: unknown) => target instanceof MessagePort && type === 'message';
  Object.defineProperty(targetProto, 'addEventListener', {
    configurable: false,
    writable: false,
    value(this: EventTarget, type: string, listener: unknown, options?: unknown) {
      return apply(add, this, [type, isPortMessage(this, type) ? counting(listener) : listener, options]);
    },
  });
  Object.defineProperty(targetProto, 'removeEventListener', {
    configurable: false,
    writable: false,
    value(this: EventTarget, type: string, listener: unknown, options?: unknown) {
      return apply(remove, this, [type, isPortMessage(this, type) && listener ? (counted.get(listener as object) ?? listener) : listener, options]);
    },
  });
  return () => deliveries;
}

export interface WorkerLockdown {
  /** Timers set since the lockdown that have neither fired nor been cleared. */
  pendingTimers(): number;
  /** Resolves after one macrotask turn, on a timer that is not counted. */
  turn(): Promise<void>;
}

/** Tracks timers and removes the rest (see the module comment). Call after Pyodide has loaded. */
export function lockDownWorker(): WorkerLockdown {
  const apply = Reflect.apply;
  const g = globalThis as unknown as Record<string, unknown>;
  const realSetTimeout = setTimeout;
  const realSetInterval = setInterval;
  const realClearTimeout = clearTimeout;
  const pending = new Set<unknown>();
  const fixed = (name: string, value: unknown) => Object.defineProperty(g, name, { value, writable: false, configurable: false, enumerable: true });
  fixed('setTimeout', function setTimeout(handler: unknown, ms?: unknown, ...args: unknown[]) {
    const id: unknown = apply(realSetTimeout, globalThis, [
      function (this: unknown) {
        pending.delete(id);
        if (typeof handler === 'function') apply(handler, this, args);
      },
      ms,
    ]);
    pending.add(id);
    return id;
  });
  fixed('setInterval', function setInterval(handler: unknown, ms?: unknown, ...args: unknown[]) {
    const id: unknown = apply(realSetInterval, globalThis, [
      function (this: unknown) {
        if (typeof handler === 'function') apply(handler, this, args);
      },
      ms,
    ]);
    pending.add(id);
    return id;
  });
  // Browsers share one id space for both kinds: either clear function clears either.
  const clear = function (id: unknown) {
    pending.delete(id);
    apply(realClearTimeout, globalThis, [id]);
  };
  fixed('clearTimeout', clear);
  fixed('clearInterval', clear);
  const trackedSetTimeout = g.setTimeout as (f: () => void, ms: number) => unknown;
  Object.defineProperty(AbortSignal, 'timeout', {
    configurable: false,
    writable: false,
    value(ms: number) {
      const controller = new AbortController();
      trackedSetTimeout(() => controller.abort(new DOMException('signal timed out', 'TimeoutError')), ms);
      return controller.signal;
    },
  });

  const removed = [
    'Worker', 'SharedWorker', 'BroadcastChannel', 'EventSource', 'FinalizationRegistry', 'requestAnimationFrame', 'cancelAnimationFrame',
    'scheduler', 'Scheduler', 'TaskController', 'TaskSignal', 'OffscreenCanvas', 'OffscreenCanvasRenderingContext2D', 'ImageBitmapRenderingContext',
    'WebGLRenderingContext', 'WebGL2RenderingContext', 'GPU', 'GPUAdapter', 'GPUDevice', 'GPUCanvasContext',
  ];
  // Wherever on the prototype chain a name lives; what cannot be deleted is shadowed by undefined.
  const erase = (target: object, name: string) => {
    for (let o: object | null = target; o !== null; o = Object.getPrototypeOf(o) as object | null) {
      if (Object.hasOwn(o, name)) delete (o as Record<string, unknown>)[name];
    }
    if (name in target) Object.defineProperty(target, name, { value: undefined, writable: false, configurable: false });
  };
  for (const name of removed) erase(g, name);
  erase(navigator, 'gpu');
  erase(Atomics, 'waitAsync');

  return {
    pendingTimers: () => pending.size,
    turn: () => new Promise<void>((resolve) => apply(realSetTimeout, globalThis, [resolve, 0])),
  };
}
