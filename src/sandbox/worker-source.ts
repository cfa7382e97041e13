/** The Pyodide worker's module source, assembled from self-contained functions (see pyodide-worker.ts). */
import { createOutputCap } from './output-cap';
import { pyodideWorkerMain } from './pyodide-worker';

export function workerSource(): string {
  // import() stays in this string: vite rewrites import() calls it compiles (see pyodideWorkerMain).
  return `(${pyodideWorkerMain.toString()})(${createOutputCap.toString()}, (url) => import(url));\n`;
}
