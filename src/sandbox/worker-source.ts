/** The Pyodide worker's module source, assembled from self-contained functions (see pyodide-worker.ts). */
import { createOutputCap } from './output-cap';
import { pyodideWorkerMain } from './pyodide-worker';

export function workerSource(): string {
  return `(${pyodideWorkerMain.toString()})(${createOutputCap.toString()});\n`;
}
