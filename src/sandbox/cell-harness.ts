/**
 * The cell harness: what runs one cell of model code and reports its result, kept where model code
 * cannot replace it. The worker opens it once, after Pyodide has loaded and before any model code
 * runs; the source is shipped with Function.prototype.toString (worker-source.ts), so
 * `openCellHarness` is self-contained: no imports, no module-level names. Node tests call it with
 * Pyodide loaded in Node.
 *
 * Invariants:
 * - Startup (python-runner.ts) captures, before any model code, the C builtins and the few Python
 *   objects the harness needs, the code objects of the harness (python-cell.ts) and of the check
 *   (python-integrity.ts), and a snapshot of everything the harness runs on. This closure holds
 *   them; code objects, tuples and C functions cannot be changed from Python.
 * - Each cell runs in a fresh harness scope built from those captures: replacing names in an
 *   earlier run's scope, or swapping its functions' code, reaches no later run. A run that changes
 *   its own scope is reported (`Cell.changed`).
 * - `changed()` runs no model code: it first asks C functions whether a trace or profile function,
 *   a sys.monitoring tool or a gc callback is set, or whether code tried to add an audit hook
 *   (refused at once by the startup's hook), and only then runs the check, compiled code in a
 *   fresh scope with the garbage collector off. Any answer but null means the interpreter must be
 *   replaced: the worker reports the run as tampering and the host restarts it.
 * - What this cannot see: writes to the WASM heap (ctypes, `pyodide_js._module`) can change
 *   anything, this closure's captures included; the iframe and worker sandbox bound what such code
 *   can reach (no network, no page, killed at the timeout).
 */
import type { PyodideInterface } from 'pyodide';
import type { PyProxy } from 'pyodide/ffi';

export interface CellHarnessSources {
  /** python-runner.ts */
  runner: string;
  /** python-cell.ts */
  cell: string;
  /** python-integrity.ts */
  integrity: string;
}

/** One cell's harness: used for one run, then closed. */
export interface Cell {
  /** Resolves with [result, error, missing] (python-cell.ts); rejects only when the runtime fails. */
  run(code: string, limit: number): Promise<PyProxy>;
  /** What the run changed in this cell's own harness, or null. */
  changed(): string | null;
  close(): void;
}

export interface CellHarness {
  /** The first change to the harness, what it runs on, or the hooks around it since startup; null when none. */
  changed(): string | null;
  /** A fresh harness for the next cell. */
  open(): Cell;
  /** asyncio tasks not done. */
  pendingTasks(): number;
}

export function openCellHarness(pyodide: PyodideInterface, sources: CellHarnessSources): CellHarness {
  type Py = PyProxy & ((...args: unknown[]) => unknown);
  type PyDict = PyProxy & { get(key: string): unknown; set(key: string, value: unknown): void };
  let refused: string | null = null;
  const scope = pyodide.toPy({}) as PyDict;
  scope.set('notify', (what: string) => {
    refused ??= what;
  });
  scope.set('cell_source', sources.cell);
  scope.set('integrity_source', sources.integrity);
  const captured = pyodide.runPython(sources.runner, { globals: scope, filename: '<sandbox-runner>' }) as PyProxy;
  const [cellCode, cellNames, builtinNames, integrityCode, integrityNames, snapshot, dict, evaluate, hooks, collector] = captured.toJs({ depth: 1 }) as Py[];
  const [getTrace, getProfile, getTool] = hooks!.toJs({ depth: 1 }) as Py[];
  const [gcEnabled, gcDisable, gcEnable, gcCallbacks, length] = collector!.toJs({ depth: 1 }) as Py[];
  const pendingTasks = scope.get('pending_tasks') as Py;

  /**
   * A new globals dict holding `names`, a `__builtins__` holding only `__import__` (a warning raised
   * in the harness, e.g. a SyntaxWarning compiling the cell, imports what shows it) and an empty
   * warning registry (where that warning is recorded), with `code` executed in it.
   */
  const freshScope = (names: Py, code: Py): PyDict => {
    const globals = dict!(names) as PyDict;
    for (const [name, contents] of [['__builtins__', builtinNames], ['__warningregistry__', undefined]] as const) {
      const fresh = (contents ? dict!(contents) : dict!()) as PyProxy;
      globals.set(name, fresh);
      fresh.destroy();
    }
    evaluate!(code, globals);
    return globals;
  };
  /** Runs `work` with the garbage collector off: no __del__ or gc callback runs meanwhile. */
  const quiet = <T>(work: () => T): T => {
    const collecting = gcEnabled!() as boolean;
    gcDisable!();
    try {
      return work();
    } finally {
      if (collecting) gcEnable!();
    }
  };
  const integrity = <T>(name: 'snapshot' | 'verify', ...args: unknown[]): T =>
    quiet(() => {
      const globals = freshScope(integrityNames!, integrityCode!);
      const f = globals.get(name) as Py;
      try {
        return f(...args) as T;
      } finally {
        f.destroy();
        globals.destroy();
      }
    });
  const isSet = (value: unknown): boolean => {
    if (value === undefined || value === null) return false;
    if (typeof value === 'object' && 'destroy' in value) (value as PyProxy).destroy();
    return true;
  };
  const hookChange = (): string | null => {
    if (refused !== null) return `the code ${refused}, which was refused`;
    if (isSet(getTrace!())) return 'a trace function (sys.settrace) was left set';
    if (isSet(getProfile!())) return 'a profile function (sys.setprofile) was left set';
    for (let id = 0; id < 6; id++) if (isSet(getTool!(id))) return `a sys.monitoring tool (id ${id}) was left registered`;
    if ((length!(gcCallbacks) as number) > 0) return 'a gc callback (gc.callbacks) was left registered';
    return null;
  };
  const verify = (snap: unknown): string | null => (integrity<string | undefined>('verify', snap) ?? null);

  return {
    changed: () => hookChange() ?? verify(snapshot),
    open(): Cell {
      const globals = freshScope(cellNames!, cellCode!);
      const run = globals.get('run') as Py;
      const roots = pyodide.toPy([["this run's harness", globals]]) as PyProxy;
      const pair = integrity<PyProxy>('snapshot', roots, true, false);
      const [own, functions] = pair.toJs({ depth: 1 }) as [PyProxy, PyProxy];
      functions.destroy();
      pair.destroy();
      roots.destroy();
      return {
        run: (code, limit) => run(code, limit) as Promise<PyProxy>,
        changed: () => verify(own),
        close() {
          run.destroy();
          own.destroy();
          globals.destroy();
        },
      };
    },
    pendingTasks: () => pendingTasks() as number,
  };
}
