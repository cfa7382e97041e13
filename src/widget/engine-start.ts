/**
 * Starts the engine worker for a widget that may be served from another origin than the page it
 * is embedded in. Module workers must be same-origin, so the worker is a same-origin blob module
 * whose only line imports the real worker script by absolute URL (cross-origin module imports are
 * allowed with CORS: the widget's server must send Access-Control-Allow-Origin).
 *
 * Invariant: the worker script and everything it loads are resolved from the widget's own URL,
 * never from the host page's.
 */
import { EngineClient } from '../engine/client';
import type { EngineConfig } from '../engine/contract';
import workerScript from '../../worker/engine.worker.ts?worker&url';

export function startEngine(config: EngineConfig): EngineClient {
  const client = new EngineClient(crossOriginWorker(workerScript, 'llama-engine'));
  client.configure(config).catch(() => {}); // a failed start surfaces on the next call
  return client;
}

/** A module worker on `script` (a URL relative to this module), started through a same-origin blob module. */
export function crossOriginWorker(script: string, name: string): Worker {
  const url = new URL(script, import.meta.url).href;
  const blob = new Blob([`import ${JSON.stringify(url)};\n`], { type: 'text/javascript' });
  return new Worker(URL.createObjectURL(blob), { type: 'module', name });
}

/**
 * Where the widget's files live: the folder of the widget module in a build (llama-chat.js sits
 * next to models/, ort/ and pyodide/), the server root under the dev server.
 */
export function defaultAssetsBase(): string {
  return new URL(import.meta.env.DEV ? '/' : './', import.meta.url).href;
}
