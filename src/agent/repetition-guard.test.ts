import { describe, expect, it } from 'vitest';
import { loadTokenizer } from '../format/tokenizer/load-node';
import { DEFAULT_REPETITION, RepetitionGuard } from './repetition-guard';

const tokenizer = loadTokenizer();

/** The index of the id at which the guard fires (-1: never), fed one id at a time. */
function firesAt(ids: readonly number[], guard = new RepetitionGuard()): number {
  return ids.findIndex((id) => guard.push(id));
}

describe('RepetitionGuard', () => {
  const sentence = tokenizer.encode(' I am sorry, I cannot run that tool without your permission.');
  const cases: Record<string, { ids: number[]; firesAt: number }> = {
    'a sentence repeated: stops on the last id of its 5th copy': { ids: Array(20).fill(sentence).flat(), firesAt: sentence.length * 5 - 1 },
    'one id repeated: stops after 64 of them': { ids: Array(200).fill(13), firesAt: 63 },
    'a 2-id block: 32 copies (64 ids)': { ids: Array(100).fill([11, 12]).flat(), firesAt: 63 },
    'a 128-id paragraph: 5 copies': { ids: Array(6).fill(Array.from({ length: 128 }, (_, i) => 1000 + i)).flat(), firesAt: 128 * 5 - 1 },
    'counting to 300 never repeats': { ids: tokenizer.encode(Array.from({ length: 300 }, (_, i) => String(i + 1)).join(', ')), firesAt: -1 },
    'a sentence 4 times is not yet a loop': { ids: Array(4).fill(sentence).flat(), firesAt: -1 },
    'a 200-id block (longer than maxPeriod) is not looked for': { ids: Array(6).fill(Array.from({ length: 200 }, (_, i) => 2000 + i)).flat(), firesAt: -1 },
    'a short table row 7 times is not a loop yet (8 needed for 8 ids)': { ids: Array(7).fill([91, 220, 15, 220, 91, 220, 15, 198]).flat(), firesAt: -1 },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => expect(firesAt(c.ids)).toBe(c.firesAt));
  }

  it('reports the period and the copies, and stays fired', () => {
    const guard = new RepetitionGuard();
    firesAt(Array(10).fill(sentence).flat(), guard);
    expect(guard.repetition).toEqual({ period: sentence.length, repeats: 5 });
    expect(guard.push(1)).toBe(true);
  });

  it('a prefix of varied text does not delay detection of the loop after it', () => {
    const prose = tokenizer.encode('Here is what I found about the harbour and its seven bridges.');
    // The prose's last ids may happen to end like the block does: the loop then counts from a little earlier.
    const at = firesAt([...prose, ...Array(10).fill(sentence).flat()]);
    expect(at).toBeLessThanOrEqual(prose.length + sentence.length * 5 - 1);
    expect(at).toBeGreaterThan(prose.length + sentence.length * 4);
  });

  it('refuses options that cannot describe a loop', () => {
    expect(() => new RepetitionGuard({ ...DEFAULT_REPETITION, minRepeats: 1 })).toThrow(RangeError);
  });
});
