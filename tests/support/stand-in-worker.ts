/**
 * A Worker-shaped endpoint whose other end is `expose`d in this thread: a real comlink boundary on a
 * MessageChannel in Node, plus the `error` event a Worker fires when its script does not load. It
 * counts the messages the client posts (each one is a call across the boundary).
 */
import { expose } from 'comlink';

export class StandInWorker extends EventTarget {
  terminated = false;
  /** Messages the client posted to the worker: one per call. */
  posted = 0;
  readonly channel = new MessageChannel();
  constructor() {
    super();
    this.channel.port1.start();
  }
  postMessage(message: unknown, transfer: Transferable[] = []): void {
    this.posted++;
    if (!this.terminated) this.channel.port1.postMessage(message, transfer as never);
  }
  override addEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: AddEventListenerOptions | boolean): void {
    if (type === 'message') this.channel.port1.addEventListener(type, listener as never, options);
    else super.addEventListener(type, listener, options);
  }
  override removeEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: EventListenerOptions | boolean): void {
    if (type === 'message') this.channel.port1.removeEventListener(type, listener as never, options);
    else super.removeEventListener(type, listener, options);
  }
  /** Serves `api` on the other end, as the worker script's `expose` would. */
  serve(api: object): this {
    expose(api, this.channel.port2 as never);
    return this;
  }
  terminate(): void {
    this.terminated = true;
    this.channel.port1.close();
  }
  close(): void {
    this.channel.port1.close();
    this.channel.port2.close();
  }
  /** What a Worker does when its script cannot be loaded: a plain `error` Event, no message. */
  failToLoad(): void {
    this.dispatchEvent(new Event('error', { cancelable: true }));
  }
}
