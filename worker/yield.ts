/**
 * Lets queued macrotasks (an abort arriving on a MessagePort, a comlink call) run between decode
 * steps. A WASM forward pass resolves through microtasks only, so without this a whole generation
 * would run before the worker ever sees the abort. MessageChannel avoids setTimeout's 4 ms clamp.
 */
export function yieldToEventLoop(): Promise<void> {
  if (typeof MessageChannel === 'undefined') return new Promise((resolve) => setTimeout(resolve, 0));
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}
