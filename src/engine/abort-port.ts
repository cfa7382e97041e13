/**
 * AbortSignal across the worker boundary: comlink cannot clone a signal, so the main thread hands
 * the worker one end of a MessageChannel (transferred) and posts "abort" on it.
 */

/** Main thread: a port to transfer with the request, or undefined without a signal. */
export function portForSignal(signal: AbortSignal | undefined): MessagePort | undefined {
  if (!signal) return undefined;
  const { port1, port2 } = new MessageChannel();
  const send = () => {
    port1.postMessage('abort');
    port1.close();
  };
  if (signal.aborted) send();
  else signal.addEventListener('abort', send, { once: true });
  return port2;
}

/** Worker: the signal the port stands for (never aborts without a port). Call `close` when done. */
export function signalFromPort(port: MessagePort | undefined): { signal: AbortSignal; close: () => void } {
  const controller = new AbortController();
  if (!port) return { signal: controller.signal, close: () => {} };
  port.onmessage = () => controller.abort();
  port.start();
  return { signal: controller.signal, close: () => port.close() };
}
