import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { customToolUse } from './custom-tools';
import { generateDialogue } from './dialogues';
import { CORPUS_RECIPES, CORPUS_SEED } from './corpus';
import { evalSets } from './evaluate';
import { Rng } from './rng';

const props = (schema: object) => Object.keys((schema as { function: { parameters: { properties: object } } }).function.parameters.properties);
const declaredName = (schema: object) => (schema as { function: { name: string } }).function.name;

describe('custom tools and their renaming', () => {
  it('the default renameRate is 0: no renaming and no extra draw', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    for (let i = 0; i < 200; i++) expect(customToolUse(a, 'train', 0)).toEqual(customToolUse(b, 'train'));
    // The same stream continues identically: no hidden draw was made by either.
    expect(a.int(0, 1_000_000)).toBe(b.int(0, 1_000_000));
  });

  // Every set's dialogues are pinned so that results of different artifacts stay comparable; customTools' dialogues
  // are one question each (why its hash differs from older results': train/README.md, "Where the workbench's
  // choices come from").
  it('every evaluation set is exactly the pinned one (sha256 of its first 400 dialogues)', () => {
    const pinned: Record<string, string> = {
      inDistribution: '3e5c309664c7cea9', test: 'c97d056c0c90931f', heldOut: 'eb0a0f419c03e646', heldOutEntities: '22f6e21a2828f2eb',
      newNames: '0aa835baaa036c3b', customTools: '776f382e6526c316', afterError: 'bb8c4cd44c97b9ce',
    };
    for (const set of evalSets()) {
      const rng = new Rng(set.seed);
      const hash = createHash('sha256');
      for (let i = 0; i < 400; i++) hash.update(JSON.stringify(generateDialogue(rng, set.options)));
      expect([set.name, hash.digest('hex').slice(0, 16)]).toEqual([set.name, pinned[set.name]]);
    }
  });

  it('every host-tool question of every evaluation set and of the corpus asks for a tool its prompt declares', () => {
    const corpora = (['learned', 'learned-hosts'] as const).map((recipe) => ({ name: recipe, seed: CORPUS_SEED, options: CORPUS_RECIPES[recipe] }));
    for (const set of [...evalSets(), ...corpora]) {
      const rng = new Rng(set.seed);
      let custom = 0;
      for (let i = 0; i < 400; i++) {
        const d = generateDialogue(rng, set.options);
        const declared = (d.tools ?? []).map(declaredName);
        for (const ex of d.exchanges) {
          if (ex.tool !== 'custom') continue;
          custom++;
          expect([set.name, declared]).toEqual([set.name, expect.arrayContaining([ex.expectedCall!.name])]);
        }
      }
      if (set.name !== 'afterError' && (set.options.weights?.custom ?? 0) > 0) expect(custom).toBeGreaterThan(20);
    }
  });

  it('Rng.weighted never draws a key of weight 0, and refuses when every weight is 0', () => {
    const rng = new Rng(5);
    for (let i = 0; i < 1000; i++) expect(rng.weighted({ a: 0, b: 1, c: 0 })).toBe('b');
    expect(() => rng.weighted({ a: 0, b: 0 })).toThrow(/every weight is 0/);
  });

  it('at renameRate 0 only ever uses the fixed variants; at 1 mostly made-up names', () => {
    const fixed = new Set<string>();
    const rng = new Rng(3);
    for (let i = 0; i < 500; i++) fixed.add(customToolUse(rng, 'train', 0).use.name);
    expect(fixed.size).toBeLessThanOrEqual(11);
    const renamed = new Set<string>();
    for (let i = 0; i < 500; i++) renamed.add(customToolUse(rng, 'train', 1).use.name);
    expect(renamed.size).toBeGreaterThan(200);
  });

  it('a renamed tool is declared under the name the call uses, with the call\'s parameter names and values', () => {
    const rng = new Rng(9);
    for (let i = 0; i < 500; i++) {
      const { use, tools } = customToolUse(rng, 'train', 1);
      expect(use.name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(declaredName(use.schema)).toBe(use.name);
      expect(tools).toContain(use.schema);
      expect(props(use.schema).sort()).toEqual(Object.keys(use.args).sort());
      for (const [k, v] of Object.entries(use.args)) expect(use.result[k]).toBe(v);
    }
  });
});
