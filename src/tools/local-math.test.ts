import { describe, expect, it } from 'vitest';
import { localMath } from './local-math';

const result = (q: string) => /Result:\n(.*)$/s.exec(localMath(q))![1];

describe('local math (wolfram_alpha without Wolfram|Alpha)', () => {
  it('answers in the LLM API sections the model was trained on: Query, Input, Result', () => {
    expect(localMath('123 * 45')).toBe('Query:\n"123 * 45"\n\nInput:\n123×45\n\nResult:\n5535');
  });

  it.each([
    ['7 + 5', '12'],
    ['1234 / 2', '617'],
    ['5 × 6', '30'],
    ['12,345 + 1', '12346'],
    ['2^10', '1024'],
    ['what is 3 to the power of 4?', '81'],
    ['square root of 144', '12'],
    ['cube root of 27', '3'],
    ['square root of 2', '1.4142135623731'],
    ['derivative of x^3', 'd/dx(x^3) = 3 x^2'],
    ['derivative of 3 x^4 + 2x', 'd/dx(3 x^4 + 2 x) = 12 x^3 + 2'],
    ['d/dx sin(x)', 'd/dx(sin(x)) = cos(x)'],
    ['5 km to miles', '3.106855961 miles'],
    ['100 degF to degC', '37.77777778 degC'],
    ['10 mod 3', '1'],
    ['pi * 2', '6.2831853071796'],
    ['3 feet in cm', '91.44 cm'],
  ])('%s → %s', (q, expected) => {
    expect(result(q)).toBe(expected);
  });

  it.each(['integrate x^2 dx', 'solve 2x + 3 = 7', 'population of Oslo', ''])('says plainly what it cannot do: %j', (q) => {
    expect(() => localMath(q)).toThrow(/local math answers arithmetic, powers, roots, derivatives and unit conversions only/);
  });

  it('a query cannot reach the parser, import or unit definitions', () => {
    for (const q of ['import({"x": 1})', 'evaluate("1+1")', 'createUnit("foo")', 'parse("1")', 'simplify("x+x")', 'config({number: "BigNumber"})']) {
      expect(() => localMath(q), q).toThrow(/uses the function/);
    }
  });

  it('a query that would hang the page (huge arrays, ranges, matrices) is refused before anything runs', () => {
    for (const [q, what] of [['range(1, 1e9)', 'the function range'], ['zeros(1e5, 1e5)', 'the function zeros'], ['1:1e9', 'a range'], ['[1, 2, 3]', 'a array'], ['1e7!', 'the operator !'], ['"text"', 'a value that is not a number'], ['x ? 1 : 2', 'a conditional']]) {
      expect(() => localMath(q!), q).toThrow(`uses ${what}`);
    }
  });

  it('a value that is not finite is an error, not "Infinity"', () => {
    expect(() => localMath('1/0')).toThrow(/no finite value/);
  });
});
