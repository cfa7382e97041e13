/**
 * Synthetic logit vectors for the sampler bench, seeded (same seed, same vector), and what they look
 * like to a top-p sampler.
 *
 * `lmLikeLogits` imitates a language model's next-token logits: a Gaussian bulk over the whole
 * vocabulary (mean 0, σ 2.5) and a heavy upper tail of 1,000 plausible continuations, Zipf-like
 * (rank r at top − a·ln r, jitter σ 0.3), whose top sits 15–19 above the bulk's mean and whose slope a
 * is drawn in [0.8, 2]. At temperature 0.6 and top-p 0.9 this gives top-1 probabilities of about
 * 0.25–0.8 and nuclei of 2–70 tokens, and — what costs a sampler most — tens of thousands of tokens
 * within 30 temperature-scaled units of the top, so not negligible for the normalizer.
 *
 * `flatLogits` is the worst case: every logit from one narrow Gaussian (σ 1), no tail: all
 * 128,256 tokens count and the 0.9 nucleus holds about 45,000 of them.
 */
import { createRng } from '../worker/rng';

function gaussian(rng: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}

export function lmLikeLogits(vocab: number, seed: number): Float32Array {
  const rng = createRng(seed);
  const logits = new Float32Array(vocab);
  for (let i = 0; i < vocab; i++) logits[i] = 2.5 * gaussian(rng);
  const top = 15 + 4 * rng();
  const slope = 0.8 + 1.2 * rng();
  for (let rank = 1; rank <= Math.min(1000, vocab); rank++) {
    logits[Math.floor(rng() * vocab)] = top - slope * Math.log(rank) + 0.3 * gaussian(rng);
  }
  return logits;
}

export function flatLogits(vocab: number, seed: number): Float32Array {
  const rng = createRng(seed);
  const logits = new Float32Array(vocab);
  for (let i = 0; i < vocab; i++) logits[i] = gaussian(rng);
  return logits;
}

export interface LogitsShape {
  /** Tokens whose weight exp((l - max) / T) is above exp(-30): the ones a normalizer must add up. */
  significant: number;
  top1: number;
  /** The smallest set of most likely tokens reaching topP. */
  nucleus: number;
  /** Entropy in nats at temperature T. */
  entropy: number;
}

/** The shape of `logits` at temperature T and top-p (by a full sort: for reporting only). */
export function shapeOf(logits: Float32Array, temperature: number, topP: number): LogitsShape {
  let max = -Infinity;
  for (const l of logits) if (l > max) max = l;
  const weights = Array.from(logits, (l) => Math.exp((l - max) / temperature)).sort((a, b) => b - a);
  const total = weights.reduce((s, w) => s + w, 0);
  let significant = 0;
  let entropy = 0;
  for (const w of weights) {
    if (w > Math.exp(-30)) significant++;
    const p = w / total;
    if (p > 0) entropy -= p * Math.log(p);
  }
  let nucleus = 0;
  for (let mass = 0; mass < topP * total; ) mass += weights[nucleus++]!;
  return { significant, top1: weights[0]! / total, nucleus, entropy };
}
