/**
 * Frozen embedding rows of the micro model (artifact format micro-llama-fp16/2): every ordinary token id
 * the training corpus did not give a learned row gets a fixed pseudo-random row instead of a zero row,
 * so that a name made of ids the model never saw is still a distinct vector it can attend to and copy.
 * The rows are regenerated from this hash, not stored: the artifact holds only their one scale.
 *
 * Invariants: row(id)[offset + d] = scale × sign(id, d) for d < dims and 0 elsewhere, with sign ∈ {−1, +1} from murmur3's
 * fmix32 of (id, d, FROZEN_ROW_SEED) — bit-identical to models/micro-llama/train/frozen_rows.py, which a test
 * checks; special-token ids (≥ FIRST_SPECIAL_ID) never get a frozen row: a reserved special token stays a zero row.
 * Rows confined to `dims` dimensions let the model keep every frozen logit at 0 where it copies nothing; an
 * `offset` (format /3) puts them in dimensions a widened model added, which its learned rows leave near 0.
 */
export const FROZEN_ROW_SEED = 0x5eed_1405;
export const FROZEN_ROWS_BELOW = 128_000;

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85eb_ca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2_ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** +1 or −1 for dimension `d` of `id`'s frozen row. */
export function frozenSign(id: number, d: number): 1 | -1 {
  const x = (Math.imul(id, 0x9e37_79b1) + Math.imul(d, 0x85eb_ca77) + FROZEN_ROW_SEED) >>> 0;
  return fmix32(x) & 1 ? 1 : -1;
}

/**
 * Writes `scale × sign` rows into dimensions [offset, offset + dims) of `embed` (vocab × hidden, row-major), zero
 * elsewhere, for every ordinary id not in `learned`.
 */
export function fillFrozenRows(embed: Float32Array, hidden: number, learned: ReadonlySet<number>, scale: number, dims: number = hidden, offset = 0): void {
  if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(dims) || dims < 1 || offset + dims > hidden) {
    throw new Error(`frozen rows: dimensions [${offset}, ${offset + dims}) do not fit a hidden size of ${hidden}`);
  }
  const vocab = embed.length / hidden;
  for (let id = 0; id < Math.min(vocab, FROZEN_ROWS_BELOW); id++) {
    if (learned.has(id)) continue;
    const row = id * hidden;
    embed.fill(0, row, row + hidden);
    for (let d = 0; d < dims; d++) embed[row + offset + d] = scale * frozenSign(id, d);
  }
}
