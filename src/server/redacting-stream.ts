/**
 * Redaction of a streamed body (the engine proxy's server-sent events): every spelling of every key
 * (key-redaction.ts) is replaced, even when the upstream splits it across network chunks.
 *
 * Invariant: text is passed on only up to the last line break seen; the rest waits for the next
 * chunk (or the end). A key holds no line break (the proxy refuses such a key), and none of the
 * spellings adds one, so a key never spans two released pieces. A line longer than `maxLineBytes`
 * errors the stream rather than growing without bound.
 */
import { redactKeys } from './key-redaction';

export const MAX_LINE_BYTES = 16 * 2 ** 20;

export function redactingStream(keys: readonly string[], maxLineBytes = MAX_LINE_BYTES): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = '';
  return new TransformStream({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      const cut = pending.lastIndexOf('\n') + 1;
      if (cut > 0) {
        controller.enqueue(encoder.encode(redactKeys(pending.slice(0, cut), keys)));
        pending = pending.slice(cut);
      }
      if (pending.length > maxLineBytes) controller.error(new Error(`the upstream sent a line of more than ${maxLineBytes} bytes`));
    },
    flush(controller) {
      pending += decoder.decode();
      if (pending !== '') controller.enqueue(encoder.encode(redactKeys(pending, keys)));
    },
  });
}

/** Whether a key can be redacted line by line (it holds no line break). */
export function isLineSafeKey(key: string): boolean {
  return !/[\r\n]/.test(key);
}
