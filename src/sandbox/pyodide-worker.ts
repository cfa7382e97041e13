/**
 * The Pyodide worker's program. It runs in a `data:` module Worker created by the sandbox frame; the
 * host ships it as source (Function.prototype.toString), so `pyodideWorkerMain` must stay
 * self-contained: it uses only its parameters and the worker's globals (imports here are types).
 *
 * Invariants:
 * - The host port never becomes reachable from model code. It arrives in the first message (before
 *   any model code exists) and lives only in this closure; model code can patch prototypes in this
 *   realm, so everything later called on the port or on its events (postMessage, event.data) is
 *   captured up front and called through the captured intrinsics.
 * - Output is capped as it streams: past the limit it is only counted, never kept or sent.
 * - One run at a time, in the order the host sent them; a run ends in at most one `done` (none
 *   when model code hangs or closes the worker: the host's timeout covers those). A fatal Pyodide
 *   error ends the run at once, marked `fatal`, so the host replaces the interpreter.
 */
import type { loadPyodide as LoadPyodide, PyodideInterface } from 'pyodide';
import type { PyProxy } from 'pyodide/ffi';
import type { createOutputCap as CreateOutputCap, OutputCap } from './output-cap';
import type { CappedText, RunRequest, WorkerConfig, WorkerMessage } from './protocol';

/**
 * `importModule` is `(url) => import(url)`, passed in as source text by worker-source.ts: a bundler
 * rewrites import() calls in code it compiles (vite: a query helper in dev, a preload wrapper in
 * builds), and those helpers do not exist where this function's source runs.
 */
export function pyodideWorkerMain(createOutputCap: typeof CreateOutputCap, importModule: (url: string) => Promise<unknown>): void {
  const apply = Reflect.apply;
  const readData = Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'data')!.get!;
  const describe = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

  addEventListener(
    'message',
    (event: MessageEvent<{ config: WorkerConfig }>) => {
      const port = event.ports[0];
      if (port) void serve(port, event.data.config);
    },
    { once: true },
  );

  async function serve(port: MessagePort, config: WorkerConfig): Promise<void> {
    const send = port.postMessage.bind(port) as (message: WorkerMessage) => void;
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

    let pyodide: PyodideInterface;
    let runCell: (code: string, limit: number) => Promise<PyProxy>;
    const packageOf = new Map<string, string>();
    try {
      const { loadPyodide } = (await importModule(`${config.indexUrl}pyodide.mjs`)) as { loadPyodide: typeof LoadPyodide };
      pyodide = await loadPyodide({
        indexURL: config.indexUrl,
        packageBaseUrl: config.packageBaseUrl ?? config.indexUrl,
        stdout: () => {},
        stderr: () => {},
      });
      pyodide.setStdout(writer('stdout'));
      pyodide.setStderr(writer('stderr'));
      pyodide.setStdin({ error: true });
      const scope = pyodide.toPy({}) as PyProxy & { get(key: string): unknown };
      pyodide.runPython(config.runnerSource, { globals: scope, filename: '<sandbox-runner>' });
      runCell = scope.get('run') as typeof runCell;
      for (const pkg of Object.values(pyodide.lockfile.packages)) {
        for (const name of pkg.imports) packageOf.set(name, pkg.name);
      }
    } catch (e) {
      send({ type: 'start-error', message: describe(e) });
      return;
    }
    send({ type: 'ready', startMs: performance.now() - started });

    type Ending = Pick<Extract<WorkerMessage, { type: 'done' }>, 'result' | 'error' | 'missing' | 'fatal'>;
    /** Sends the run's one `done`; later calls (a fatal error, then its rejection) are ignored. */
    const finish = (run: Run, ending: Ending) => {
      if (run.finished) return;
      run.finished = true;
      if (current === run) current = null;
      send({ type: 'done', id: run.id, ...ending, dropped: { stdout: run.stdout.dropped(), stderr: run.stderr.dropped() } });
    };
    const fatal = (run: Run, e: unknown) => finish(run, { result: null, error: { text: describe(e), dropped: 0 }, missing: null, fatal: true });

    // A fatal error leaves the runtime unusable and may never settle the run's promise: end the run
    // now so the host replaces the interpreter at once instead of waiting for the timeout.
    (pyodide as unknown as { _api: { on_fatal?: (e: unknown) => void } })._api.on_fatal = (e) => {
      if (current) fatal(current, e);
    };

    async function execute({ id, code }: RunRequest): Promise<void> {
      const run: Run = { id, stdout: createOutputCap(config.outputLimit), stderr: createOutputCap(config.outputLimit), finished: false };
      current = run;
      try {
        if (config.packageBaseUrl) {
          await pyodide.loadPackagesFromImports(code, {
            messageCallback: () => {},
            errorCallback: (message: string) => emit('stderr', `${message}\n`),
          });
        }
        const proxy = await runCell(code, config.outputLimit);
        const [result, error, missing] = proxy.toJs({ dict_converter: Object.fromEntries }) as [
          CappedText | undefined,
          CappedText | undefined,
          string | undefined,
        ];
        proxy.destroy();
        const pkg = missing === undefined ? undefined : packageOf.get(missing);
        finish(run, {
          result: result ?? null,
          error: error ?? null,
          missing: missing !== undefined && pkg !== undefined ? { module: missing, package: pkg } : null,
          fatal: false,
        });
      } catch (e) {
        // Every Python exception is data inside runCell: this is the runtime itself failing.
        fatal(run, e);
      }
    }

    let queue = Promise.resolve();
    port.onmessage = (event) => {
      const request = apply(readData, event, []) as RunRequest;
      queue = queue.then(() => execute(request));
    };
  }
}
