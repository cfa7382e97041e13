/**
 * Lets queued macrotasks (an abort arriving on a MessagePort, a comlink call) run between decode
 * steps. A WASM forward pass resolves through microtasks only, so without this a whole generation
 * would run before the worker ever sees the abort. One MessageChannel, created once and reused: a
 * new channel per token left a port for the garbage collector every token (full collections every
 * few dozen tokens). MessageChannel avoids setTimeout's 4 ms clamp.
 *
 * In Node none is needed: onnxruntime-node runs each forward in its own setImmediate, so the event
 * loop turns between tokens anyway.
 */
import { IN_NODE } from './in-node';

let channel: MessageChannel | null = null;
const waiting: Array<() => void> = [];

export function yieldToEventLoop(): Promise<void> {
  if (IN_NODE) return Promise.resolve();
  if (typeof MessageChannel === 'undefined') return new Promise((resolve) => setTimeout(resolve, 0));
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => waiting.shift()?.();
  }
  const turn = new Promise<void>((resolve) => waiting.push(resolve));
  channel.port2.postMessage(null);
  return turn;
}
