import { describe, expect, it } from 'vitest';
import { nodeGrammars } from './node-grammars';
import { admitsSomeString } from './grammar-emptiness';

/** Cases keyed by what they show: the EBNF as a user writes it → whether any finite string is in it. */
const cases: Record<string, [string, boolean]> = {
  'recursion with no way out': ['root ::= "a" root', false],
  'a way out through an alternative': ['root ::= "a" root | "b"', true],
  'a way out through an empty alternative of another rule': ['root ::= "y" b\nb ::= "y" (b | "")', true],
  'two rules that only call each other': ['root ::= a\na ::= "x" b\nb ::= "y" a', false],
  'an unproductive branch beside a productive one': ['root ::= a | b\na ::= "x" a\nb ::= "y"', true],
  'repetition, classes and optionals': ['root ::= ("yes" | "no") " " [0-9]+ x?\nx ::= "q"{2,3}', true],
  'escaped quotes and brackets in terminals': ['root ::= [^"\\\\]* "\\"(" [\\]a]', true],
};

describe('grammar emptiness, on XGrammar\'s normalized print', () => {
  for (const [name, [ebnf, expected]] of Object.entries(cases)) {
    it(name, async () => {
      const compiled = await nodeGrammars().compile({ kind: 'ebnf', grammar: ebnf });
      expect(admitsSomeString(compiled.grammar().toString())).toBe(expected);
    });
  }

  it('what it cannot read counts as productive', () => {
    expect(admitsSomeString('root ::= {weird}')).toBe(true);
    expect(admitsSomeString('')).toBe(true);
  });
});
