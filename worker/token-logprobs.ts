/** Log probabilities from a logits vector: the chosen id's and the `top` most likely ids' (pure). */
import type { TokenLogprob } from '../src/engine/contract';

export const MAX_TOP_LOGPROBS = 20;

export function tokenLogprob(logits: Float32Array, chosen: number, top: number): TokenLogprob {
  let max = -Infinity;
  for (const x of logits) if (x > max) max = x;
  let sum = 0;
  for (const x of logits) if (x !== -Infinity) sum += Math.exp(x - max);
  const lse = max + Math.log(sum);
  // The `top` largest, kept sorted in a small array (top ≤ 20: insertion is cheaper than sorting 128k).
  const best: Array<{ id: number; logprob: number }> = [];
  if (top > 0) {
    for (let id = 0; id < logits.length; id++) {
      const x = logits[id]!;
      if (x === -Infinity || (best.length === top && x <= best[top - 1]!.logprob)) continue;
      let at = best.length;
      while (at > 0 && best[at - 1]!.logprob < x) at--;
      best.splice(at, 0, { id, logprob: x });
      if (best.length > top) best.pop();
    }
  }
  return { id: chosen, logprob: logits[chosen]! - lse, top: best.map((b) => ({ id: b.id, logprob: b.logprob - lse })) };
}
