/**
 * An open-addressing hash table from a pair of token ids to a merge rank, in typed arrays: BPE looks
 * a pair up for every adjacent pair it considers, and a Map keyed by packed numbers is several times
 * slower to fill and to query. Ids and ranks are non-negative 31-bit integers; the first rank stored
 * for a pair wins (a later duplicate merge is unreachable, as in Hugging Face's BPE).
 */
export class MergeTable {
  private readonly lefts: Int32Array;
  private readonly rights: Int32Array;
  private readonly ranks: Int32Array;
  private readonly mask: number;
  private free: number;

  /** A table with room for `capacity` pairs (kept at most half full). */
  constructor(capacity: number) {
    let size = 16;
    while (size < capacity * 2) size *= 2;
    this.mask = size - 1;
    this.free = capacity;
    this.lefts = new Int32Array(size).fill(-1);
    this.rights = new Int32Array(size);
    this.ranks = new Int32Array(size);
  }

  private slot(left: number, right: number): number {
    return (Math.imul(left, 0x9e3779b1) ^ Math.imul(right + 0x7f4a7c15, 0x85ebca77)) & this.mask;
  }

  /** Stores `rank` for (left, right) unless the pair already has one; throws past the capacity. */
  add(left: number, right: number, rank: number): void {
    let i = this.slot(left, right);
    for (;;) {
      const l = this.lefts[i]!;
      if (l === -1) {
        if (this.free-- === 0) throw new RangeError('MergeTable: over capacity');
        this.lefts[i] = left;
        this.rights[i] = right;
        this.ranks[i] = rank;
        return;
      }
      if (l === left && this.rights[i] === right) return;
      i = (i + 1) & this.mask;
    }
  }

  /** The rank of the merge joining `left` then `right`, or -1 when there is none. */
  rank(left: number, right: number): number {
    let i = this.slot(left, right);
    for (;;) {
      const l = this.lefts[i]!;
      if (l === -1) return -1;
      if (l === left && this.rights[i] === right) return this.ranks[i]!;
      i = (i + 1) & this.mask;
    }
  }
}
