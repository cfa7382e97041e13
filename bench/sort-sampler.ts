/**
 * The baseline of the sampler bench: top-p sampling written the straightforward way — softmax over
 * the whole vocabulary, sort every index by probability, cut at the cumulative mass, draw.
 */
export type SortSampler = (logits: Float32Array, temperature: number, topP: number, rng: () => number) => number;

export function createSortSampler(): SortSampler {
  return (logits, temperature, topP, rng) => {
    let max = -Infinity;
    for (const l of logits) if (l > max) max = l;
    const probs = new Float64Array(logits.length);
    let total = 0;
    for (let i = 0; i < logits.length; i++) total += probs[i] = Math.exp((logits[i]! - max) / temperature);
    for (let i = 0; i < probs.length; i++) probs[i] = probs[i]! / total;
    const order = Array.from({ length: probs.length }, (_, i) => i).sort((a, b) => probs[b]! - probs[a]!);
    let cut = 0;
    let mass = 0;
    while (cut < order.length && mass < topP) mass += probs[order[cut++]!]!;
    let r = rng() * mass;
    for (let k = 0; k < cut; k++) {
      r -= probs[order[k]!]!;
      if (r < 0) return order[k]!;
    }
    return order[cut - 1]!;
  };
}

/** The ids the sort sampler can draw from (its nucleus), for checking another sampler against it. */
export function sortNucleus(logits: Float32Array, temperature: number, topP: number): Set<number> {
  let max = -Infinity;
  for (const l of logits) if (l > max) max = l;
  const w = Array.from(logits, (l) => Math.exp((l - max) / temperature));
  const total = w.reduce((s, x) => s + x, 0);
  const order = w.map((_, i) => i).sort((a, b) => w[b]! - w[a]! || a - b);
  const out = new Set<number>();
  let mass = 0;
  for (const i of order) {
    if (mass >= topP * total) break;
    out.add(i);
    mass += w[i]!;
  }
  return out;
}
