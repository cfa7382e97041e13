import { describe, expect, it } from 'vitest';
import { customToolUse } from './custom-tools';
import { Rng } from './rng';

const props = (schema: object) => Object.keys((schema as { function: { parameters: { properties: object } } }).function.parameters.properties);
const declaredName = (schema: object) => (schema as { function: { name: string } }).function.name;

describe('custom tools (run 13 renaming)', () => {
  it('at renameRate 0 makes exactly the draws it made before renaming existed (the evaluation sets are unchanged)', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    for (let i = 0; i < 200; i++) expect(customToolUse(a, 'train', 0)).toEqual(customToolUse(b, 'train'));
    // The same stream continues identically: no hidden draw was made by either.
    expect(a.int(0, 1_000_000)).toBe(b.int(0, 1_000_000));
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
