/**
 * Tests only: a Sandbox over Pyodide running in this Node process, so the code interpreter's real
 * tool (codeInterpreterTool) runs real Python in Node tests. It isolates nothing — the browser's
 * PyodideSandbox is the one that does — and it has no timeout kill; never use it outside tests.
 */
import { loadPyodide, type PyodideInterface } from 'pyodide';
import type { Sandbox, SandboxResult } from '../../src/sandbox/sandbox';

export class NodePythonSandbox implements Sandbox {
  private pyodide: Promise<PyodideInterface> | null = null;
  ready = false;
  readonly startTimeoutMs = 60_000;

  warm(): Promise<void> {
    this.pyodide ??= loadPyodide();
    return this.pyodide.then(() => {
      this.ready = true;
    });
  }

  async run(code: string): Promise<SandboxResult> {
    await this.warm();
    const py = await this.pyodide!;
    let stdout = '';
    let stderr = '';
    py.setStdout({ batched: (s) => (stdout += `${s}\n`) });
    py.setStderr({ batched: (s) => (stderr += `${s}\n`) });
    const t0 = performance.now();
    let result: string | null = null;
    let error: string | null = null;
    try {
      const value: unknown = await py.runPythonAsync(code);
      result = value === undefined || value === null ? null : String(value);
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    return { stdout, stderr, result, error, stateLost: false, truncated: [], durationMs: performance.now() - t0 };
  }

  async reset(): Promise<void> {
    this.pyodide = null;
  }

  dispose(): void {
    this.pyodide = null;
  }
}
