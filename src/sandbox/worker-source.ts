/** The Pyodide worker's module source, assembled from self-contained functions (see pyodide-worker.ts). */
import { openCellHarness } from './cell-harness';
import { createOutputCap } from './output-cap';
import { limitBuffers } from './worker-buffers';
import { pyodideWorkerMain } from './pyodide-worker';
import { lockDownWorker, watchPortDeliveries } from './worker-lockdown';

export function workerSource(): string {
  // import() stays in this string: vite rewrites import() calls it compiles (see pyodideWorkerMain).
  const parts = [createOutputCap, watchPortDeliveries, lockDownWorker, openCellHarness, limitBuffers].map((f) => f.toString());
  return `(${pyodideWorkerMain.toString()})(${parts.join(', ')}, (url) => import(url));\n`;
}
