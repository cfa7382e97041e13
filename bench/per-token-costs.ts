/**
 * The per-token waste the onnx backend no longer has, each measured on its own (no model: only the
 * work that was removed, done as the old code did it and as the new code does, interleaved): the
 * logits copy before sampling, the input tensors rebuilt each token (BigInt ids, positions and a
 * full-length attention mask) against reused buffers, and a new MessageChannel per yield against one
 * reused channel. Microseconds per token, medians.
 */
import { Tensor } from 'onnxruntime-common';
import { interleave, median, round } from './measure';

const VOCAB = 128256;
const TOKENS = 2000;

/** `TOKENS` repetitions of one token's work, timed (ms); returns µs per token. */
async function perToken(work: (i: number) => unknown | Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < TOKENS; i++) await work(i);
  return ((performance.now() - t0) / TOKENS) * 1000;
}

export async function perTokenCosts(context = 1000): Promise<Record<string, number>> {
  const logits = new Float32Array(VOCAB).map((_, i) => Math.sin(i));
  let sink = 0;
  const mask = new BigInt64Array(context + TOKENS + 1).fill(1n);
  const ids = new BigInt64Array(8);
  const positions = new BigInt64Array(8);
  const oldChannel = () =>
    new Promise<void>((resolve) => {
      const { port1, port2 } = new MessageChannel();
      port1.onmessage = () => {
        port1.close();
        resolve();
      };
      port2.postMessage(null);
    });
  const shared = new MessageChannel();
  const waiting: Array<() => void> = [];
  shared.port1.onmessage = () => waiting.shift()?.();
  const reusedChannel = () => {
    const turn = new Promise<void>((resolve) => waiting.push(resolve));
    shared.port2.postMessage(null);
    return turn;
  };
  try {
    const samples = await interleave(5, {
      logitsCopied: () => perToken(() => (sink += logits.slice(0)[7]!)),
      logitsInPlace: () => perToken(() => (sink += logits[7]!)),
      inputsRebuilt: () =>
        perToken((i) => {
          const total = context + i + 1;
          sink += new Tensor('int64', BigInt64Array.from([i], BigInt), [1, 1]).size;
          sink += new Tensor('int64', new BigInt64Array(total).fill(1n), [1, total]).size;
          sink += new Tensor('int64', BigInt64Array.from({ length: 1 }, () => BigInt(context + i)), [1, 1]).size;
        }),
      inputsReused: () =>
        perToken((i) => {
          const total = context + i + 1;
          ids[0] = BigInt(i);
          positions[0] = BigInt(context + i);
          sink += new Tensor('int64', ids.subarray(0, 1), [1, 1]).size;
          sink += new Tensor('int64', mask.subarray(0, total), [1, total]).size;
          sink += new Tensor('int64', positions.subarray(0, 1), [1, 1]).size;
        }),
      channelPerYield: () => perToken(oldChannel),
      channelReused: () => perToken(reusedChannel),
    });
    if (sink === 42) console.log('');
    const m = (k: keyof typeof samples) => round(median(samples[k]));
    return {
      logitsCopyUs: m('logitsCopied'),
      logitsInPlaceUs: m('logitsInPlace'),
      inputsRebuiltUs: m('inputsRebuilt'),
      inputsReusedUs: m('inputsReused'),
      yieldNewChannelUs: m('channelPerYield'),
      yieldReusedChannelUs: m('channelReused'),
    };
  } finally {
    shared.port1.close();
  }
}
