/**
 * The Pyodide worker's program. It runs in a `data:` module Worker created by the sandbox frame; the
 * host ships it as source (Function.prototype.toString), so `pyodideWorkerMain` must stay
 * self-contained: it uses only its parameters and the worker's globals (imports here are types).
 *
 * Invariants:
 * - No network: the worker's connect-src is 'none'. Pyodide's wasm and standard library arrive as
 *   bytes with the first message and are served to Pyodide's own fetch calls from memory; package
 *   files come from the host, and only while the imports of the run about to start are loading
 *   (no model code runs then). Every other fetch is the browser's, which the policy refuses.
 * - Before model code runs, the worker is locked down (worker-lockdown.ts): no nested workers, GPU
 *   or canvases, and every way to run code later is counted or gone. A run's `done` is sent only
 *   after the event loop has gone quiet, and says `leftover` when the code left timers, a message
 *   loop or asyncio tasks behind — the host then replaces the interpreter.
 * - The host port never becomes reachable from model code. It arrives in the first message (before
 *   any model code exists) and lives only in this closure; model code can patch prototypes in this
 *   realm, so everything later called on the port or on its events (postMessage, event.data) is
 *   captured up front and called through the captured intrinsics.
 * - Each cell runs through the cell harness (cell-harness.ts), checked before the cell's imports
 *   load and again after it returns: a change to it ends the run as `tampered` (no result), and the
 *   host replaces the interpreter.
 * - JS buffers are capped (worker-buffers.ts, installed before any model code): a run that reaches
 *   the ceiling is marked `bufferCeiling`, and the host replaces the interpreter.
 * - Output is capped as it streams: past the limit it is only counted, never kept or sent.
 * - One run at a time, in the order the host sent them; a run ends in at most one `done` (none
 *   when model code hangs or closes the worker: the host's timeout covers those). A fatal Pyodide
 *   error ends the run at once, marked `fatal`, so the host replaces the interpreter.
 */
import type { loadPyodide as LoadPyodide, PyodideInterface } from 'pyodide';
import type { PyProxy } from 'pyodide/ffi';
import type { CellHarness, openCellHarness as OpenCellHarness } from './cell-harness';
import type { createOutputCap as CreateOutputCap, OutputCap } from './output-cap';
import type { BufferCeiling, limitBuffers as LimitBuffers } from './worker-buffers';
import type { CappedText, PackageData, PyodideFiles, RunRequest, WorkerConfig, WorkerMessage } from './protocol';
import type { lockDownWorker as LockDownWorker, watchPortDeliveries as WatchPortDeliveries } from './worker-lockdown';

/**
 * `importModule` is `(url) => import(url)`, passed in as source text by worker-source.ts: a bundler
 * rewrites import() calls in code it compiles (vite: a query helper in dev, a preload wrapper in
 * builds), and those helpers do not exist where this function's source runs.
 */
export function pyodideWorkerMain(
  createOutputCap: typeof CreateOutputCap,
  watchPortDeliveries: typeof WatchPortDeliveries,
  lockDownWorker: typeof LockDownWorker,
  openCellHarness: typeof OpenCellHarness,
  limitBuffers: typeof LimitBuffers,
  importModule: (url: string) => Promise<unknown>,
): void {
  const apply = Reflect.apply;
  const readData = Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'data')!.get!;
  const describe = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  // Before Pyodide loads, so that its own scheduler's port is counted as well.
  const deliveries = watchPortDeliveries();
  /** Quiet turns the event loop gets after a run before leftover work is declared. */
  const MAX_SETTLE_TURNS = 50;

  addEventListener(
    'message',
    (event: MessageEvent<{ config: WorkerConfig; files: PyodideFiles }>) => {
      const port = event.ports[0];
      if (port) void serve(port, event.data.config, event.data.files);
    },
    { once: true },
  );

  async function serve(port: MessagePort, config: WorkerConfig, files: PyodideFiles): Promise<void> {
    const post = port.postMessage;
    const send = (message: WorkerMessage) => apply(post, port, [message]);
    const started = performance.now();
    type Run = { id: number; stdout: OutputCap; stderr: OutputCap; finished: boolean };
    let current: Run | null = null;

    /** Output of the run in flight, capped; output while no run is in flight is dropped. */
    const emit = (stream: 'stdout' | 'stderr', text: string) => {
      const run = current;
      const kept = run ? run[stream].take(text) : '';
      if (run && kept) send({ type: 'output', id: run.id, stream, text: kept });
    };
    const writer = (stream: 'stdout' | 'stderr') => {
      const decoder = new TextDecoder();
      return {
        isatty: false,
        write(buffer: Uint8Array): number {
          emit(stream, decoder.decode(buffer, { stream: true }));
          return buffer.length;
        },
      };
    };

    // Pyodide's own fetch calls: the runtime files from memory, package files from the host while
    // `loadingPackages`, anything else to the browser (refused: connect-src 'none'). The classes it
    // uses are captured now: a global a run replaces cannot steer it.
    const realFetch = fetch;
    const [NativeURL, NativeRequest, NativeResponse] = [URL, Request, Response];
    const local = new Map<string, [ArrayBuffer, string]>([
      [`${config.indexUrl}pyodide.asm.wasm`, [files.wasm, 'application/wasm']],
      [`${config.indexUrl}python_stdlib.zip`, [files.stdlib, 'application/zip']],
    ]);
    let loadingPackages = false;
    const packageRequests = new Map<number, (data: PackageData) => void>();
    let nextPackageRequest = 1;
    const fromHost = (file: string) =>
      new Promise<Response>((resolve) => {
        const id = nextPackageRequest++;
        packageRequests.set(id, ({ status, bytes }) => resolve(bytes ? new NativeResponse(bytes, { status: 200 }) : new NativeResponse(null, { status: status || 502 })));
        send({ type: 'package', id, file });
      });
    const hrefOf = (input: unknown): string => {
      try {
        return input instanceof NativeRequest ? input.url : new NativeURL(String(input)).href;
      } catch {
        return '';
      }
    };
    const pyodideFetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const href = hrefOf(input);
      const file = local.get(href);
      if (file) return Promise.resolve(new NativeResponse(file[0], { headers: { 'content-type': file[1] } }));
      const base = config.packageBaseUrl;
      if (loadingPackages && base && href.startsWith(base) && !href.slice(base.length).includes('/')) return fromHost(href.slice(base.length));
      return apply(realFetch, globalThis, [input, init]) as Promise<Response>;
    };
    Object.defineProperty(globalThis, 'fetch', { value: pyodideFetch, writable: false, configurable: false, enumerable: true });

    let pyodide: PyodideInterface;
    let harness: CellHarness;
    let loadPackagesFromImports: PyodideInterface['loadPackagesFromImports'];
    let lockdown: ReturnType<typeof LockDownWorker>;
    let buffers: BufferCeiling;
    const packageOf = new Map<string, string>();
    try {
      const { loadPyodide } = (await importModule(`${config.indexUrl}pyodide.mjs`)) as { loadPyodide: typeof LoadPyodide };
      pyodide = await loadPyodide({
        indexURL: config.indexUrl,
        lockFileContents: files.lock,
        packageBaseUrl: config.packageBaseUrl ?? config.indexUrl,
        stdout: () => {},
        stderr: () => {},
      });
      local.clear(); // loaded: Pyodide holds what it needs, these references can go
      pyodide.setStdout(writer('stdout'));
      pyodide.setStderr(writer('stderr'));
      pyodide.setStdin({ error: true });
      // Before the lockdown, which removes the FinalizationRegistry it counts with.
      buffers = limitBuffers(config.bufferLimit);
      // Before the harness: its runner binds the timer functions it uses.
      lockdown = lockDownWorker();
      harness = openCellHarness(pyodide, config.harness);
      // Model code can assign to the API object's properties (pyodide_js): the worker keeps its own.
      loadPackagesFromImports = pyodide.loadPackagesFromImports.bind(pyodide);
      for (const pkg of Object.values(pyodide.lockfile.packages)) {
        for (const name of pkg.imports) packageOf.set(name, pkg.name);
      }
    } catch (e) {
      send({ type: 'start-error', message: describe(e) });
      return;
    }
    send({ type: 'ready', startMs: performance.now() - started });

    /**
     * Lets the event loop run until one whole turn passes with no port delivery (what the run
     * finished still settles: done callbacks), then says whether anything is left: timers, a
     * message loop that never goes quiet, or asyncio tasks not done.
     */
    const leftoverWork = async (): Promise<boolean> => {
      for (let turn = 0; turn < MAX_SETTLE_TURNS; turn++) {
        const before = deliveries();
        await lockdown.turn();
        if (deliveries() === before) return lockdown.pendingTimers() > 0 || harness.pendingTasks() > 0;
      }
      return true;
    };

    type Ending = Pick<Extract<WorkerMessage, { type: 'done' }>, 'result' | 'error' | 'missing' | 'fatal' | 'leftover' | 'tampered' | 'bufferCeiling'>;
    /** Sends the run's one `done`; later calls (a fatal error, then its rejection) are ignored. */
    const finish = (run: Run, ending: Ending) => {
      if (run.finished) return;
      run.finished = true;
      if (current === run) current = null;
      send({ type: 'done', id: run.id, ...ending, dropped: { stdout: run.stdout.dropped(), stderr: run.stderr.dropped() } });
    };
    const fatal = (run: Run, e: unknown) =>
      finish(run, { result: null, error: { text: describe(e), dropped: 0 }, missing: null, fatal: true, leftover: false, tampered: null, bufferCeiling: buffers.reached() });
    const tampered = (run: Run, what: string) =>
      finish(run, { result: null, error: null, missing: null, fatal: false, leftover: false, tampered: what, bufferCeiling: buffers.reached() });

    // A fatal error leaves the runtime unusable and may never settle the run's promise: end the run
    // now so the host replaces the interpreter at once instead of waiting for the timeout.
    (pyodide as unknown as { _api: { on_fatal?: (e: unknown) => void } })._api.on_fatal = (e) => {
      if (current) fatal(current, e);
    };

    async function execute({ id, code }: RunRequest): Promise<void> {
      const run: Run = { id, stdout: createOutputCap(config.outputLimit), stderr: createOutputCap(config.outputLimit), finished: false };
      current = run;
      try {
        // Before anything runs Python for this cell: what an earlier run (or a callback since) changed.
        buffers.reached();
        const before = harness.changed();
        if (before !== null) return tampered(run, `found before this code ran: ${before}`);
        if (config.packageBaseUrl) {
          loadingPackages = true;
          try {
            await loadPackagesFromImports(code, {
              messageCallback: () => {},
              errorCallback: (message: string) => emit('stderr', `${message}\n`),
            });
          } finally {
            loadingPackages = false;
          }
        }
        const cell = harness.open();
        let outcome: PyProxy;
        try {
          outcome = await cell.run(code, config.outputLimit);
        } finally {
          const changed = cell.changed() ?? harness.changed();
          cell.close();
          if (changed !== null) tampered(run, changed);
        }
        if (run.finished) return outcome.destroy();
        const [result, error, missing] = outcome.toJs({ dict_converter: Object.fromEntries }) as [
          CappedText | undefined,
          CappedText | undefined,
          string | undefined,
        ];
        outcome.destroy();
        const pkg = missing === undefined ? undefined : packageOf.get(missing);
        const leftover = await leftoverWork();
        finish(run, {
          result: result ?? null,
          error: error ?? null,
          missing: missing !== undefined && pkg !== undefined ? { module: missing, package: pkg } : null,
          fatal: false,
          leftover,
          tampered: null,
          bufferCeiling: buffers.reached(),
        });
      } catch (e) {
        // Every Python exception is data inside the harness: this is the runtime itself failing.
        fatal(run, e);
      }
    }

    let queue = Promise.resolve();
    port.onmessage = (event) => {
      const message = apply(readData, event, []) as RunRequest | PackageData;
      if (message.type === 'package-data') {
        packageRequests.get(message.id)?.(message);
        packageRequests.delete(message.id);
        return;
      }
      queue = queue.then(() => execute(message));
    };
  }
}
