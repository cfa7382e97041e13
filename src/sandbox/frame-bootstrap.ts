/**
 * The sandbox frame's only script. It accepts exactly one message, from the parent, carrying the
 * control port, the worker's port and Pyodide's files; starts the Pyodide worker from a `data:` URL
 * (a module Worker; classic workers are refused by Pyodide, `blob:` fails in an opaque origin) and
 * hands the worker its port and the files (transferred). After that it listens to nothing but the
 * worker's error events: messages the worker posts to the frame (model code can call
 * `postMessage`) are never read or relayed.
 *
 * Self-contained: the host inlines its source (Function.prototype.toString) into the srcdoc.
 */
import type { FrameMessage, FrameStart } from './protocol';

export function frameBootstrap(): void {
  const start = (event: MessageEvent<FrameStart>) => {
    if (event.source !== parent || event.ports.length !== 2 || event.data?.type !== 'start') return;
    removeEventListener('message', start);
    const [control, workerPort] = event.ports as [MessagePort, MessagePort];
    const report = (message: string) => control.postMessage({ type: 'worker-error', message } satisfies FrameMessage);
    try {
      const url = `data:text/javascript;charset=utf-8,${encodeURIComponent(event.data.workerSource)}`;
      const worker = new Worker(url, { type: 'module', name: 'python-sandbox' });
      worker.onerror = (e) => {
        e.preventDefault();
        report(e.message || 'the Python worker failed to start or crashed');
      };
      const { workerConfig: config, files } = event.data;
      worker.postMessage({ config, files }, [workerPort, files.wasm, files.stdlib]);
    } catch (e) {
      report(String(e));
    }
  };
  addEventListener('message', start);
}
