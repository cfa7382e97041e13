/**
 * Detects a step that has fallen into a loop: the tail of what the model emitted is one block of p
 * ids repeated back to back. Fed one id at a time; O(maxPeriod) per id.
 *
 * Invariants: `push` returns true exactly when the ids so far end in at least `repeatsFor(p)` copies
 * of a block of some period p ≤ maxPeriod (a short block needs more copies: `minSpan` ids at least,
 * so a run of dashes or a short table row is not a loop before it is long); once true, it stays true.
 */
export interface RepetitionOptions {
  /** The longest repeated block looked for, in ids. */
  maxPeriod: number;
  /** Copies of a block that make a loop (at least 2). */
  minRepeats: number;
  /** A loop spans at least this many ids, whatever its period. */
  minSpan: number;
}

/** A repeated sentence stops after 5 copies; one repeated id after 64; a 128-id paragraph after 5. */
export const DEFAULT_REPETITION: RepetitionOptions = { maxPeriod: 128, minRepeats: 5, minSpan: 64 };

export interface Repetition {
  /** Length of the repeated block, in ids. */
  period: number;
  /** Copies of it at the end of the step. */
  repeats: number;
}

export class RepetitionGuard {
  private readonly ids: number[] = [];
  /** run[p]: how many of the latest ids equal the id p before them, consecutively. */
  private readonly run: Int32Array;
  private found: Repetition | null = null;

  constructor(private readonly o: RepetitionOptions = DEFAULT_REPETITION) {
    if (!(o.minRepeats >= 2) || !(o.maxPeriod >= 1)) throw new RangeError('a repetition needs minRepeats >= 2 and maxPeriod >= 1');
    this.run = new Int32Array(o.maxPeriod + 1);
  }

  /** The loop found, or null. */
  get repetition(): Repetition | null {
    return this.found;
  }

  /** Copies of a block of `period` ids that count as a loop. */
  repeatsFor(period: number): number {
    return Math.max(this.o.minRepeats, Math.ceil(this.o.minSpan / period));
  }

  /** Adds the next emitted id; true once the step ends in a loop. */
  push(id: number): boolean {
    if (this.found) return true;
    const ids = this.ids;
    ids.push(id);
    const n = ids.length;
    for (let p = 1; p <= this.o.maxPeriod && p < n; p++) {
      this.run[p] = ids[n - 1] === ids[n - 1 - p] ? this.run[p]! + 1 : 0;
      // The last L = p·R ids are p-periodic when the last L - p ids each equal the one p before.
      const repeats = this.repeatsFor(p);
      if (this.run[p]! >= p * (repeats - 1)) {
        this.found = { period: p, repeats };
        return true;
      }
    }
    return false;
  }
}
