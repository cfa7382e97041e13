/**
 * The Pyodide sandbox, its code loaded on first need (warm or run): a page that never runs Python
 * never downloads the sandbox's frame, worker and harness sources.
 *
 * Invariant: behaves as the PyodideSandbox it wraps — one instance, created on the first warm/run
 * and kept; dispose() before that means none is ever created.
 */
import type { PyodideSandbox, PyodideSandboxOptions } from './pyodide-sandbox';
import { DEFAULT_START_TIMEOUT_MS, type Sandbox, type SandboxResult, type SandboxRunOptions } from './sandbox';

export class LazyPyodideSandbox implements Sandbox {
  readonly startTimeoutMs: number;
  private inner: PyodideSandbox | null = null;
  private loading: Promise<PyodideSandbox> | null = null;
  private disposed = false;

  constructor(private readonly options: PyodideSandboxOptions = {}) {
    this.startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  }

  get ready(): boolean {
    return this.inner?.ready ?? false;
  }

  async warm(): Promise<void> {
    await (await this.sandbox()).warm();
  }

  async run(code: string, options?: SandboxRunOptions): Promise<SandboxResult> {
    return (await this.sandbox()).run(code, options);
  }

  async reset(): Promise<void> {
    await (await this.sandbox()).reset();
  }

  dispose(): void {
    this.disposed = true;
    this.inner?.dispose();
  }

  private sandbox(): Promise<PyodideSandbox> {
    this.loading ??= import('./pyodide-sandbox').then(({ PyodideSandbox }) => {
      if (this.disposed) throw new Error('the sandbox was disposed');
      this.inner = new PyodideSandbox({ ...this.options, startTimeoutMs: this.startTimeoutMs });
      return this.inner;
    });
    return this.loading;
  }
}
