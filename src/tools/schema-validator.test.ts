import { afterEach, describe, expect, it, vi } from 'vitest';
import { compileChecker, MAX_LISTED_PROBLEMS, SchemaCompileError } from './schema-validator';

const DRAFT_2019 = 'https://json-schema.org/draft/2019-09/schema';
const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';

function compileError(schema: Record<string, unknown>): string {
  try {
    compileChecker(schema);
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaCompileError);
    return (error as Error).message;
  }
  throw new Error('compiled');
}

describe('compileChecker: no code generation', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('compiles (meta-schemas included) and checks with eval and Function throwing, in every dialect', async () => {
    vi.resetModules(); // a fresh module: its meta-schemas are prepared under the stubs
    const fresh = await import('./schema-validator');
    const refuse = function () {
      throw new EvalError('code generation from strings disallowed'); // what a page without 'unsafe-eval' does
    };
    vi.stubGlobal('Function', refuse);
    vi.stubGlobal('eval', refuse);
    for (const dialect of [{}, { $schema: DRAFT_2019 }, { $schema: DRAFT_2020 }]) {
      const check = fresh.compileChecker({ ...dialect, type: 'object', properties: { city: { type: 'string', pattern: '^[A-Z]' } }, required: ['city'] });
      expect(check({ city: 'Paris' })).toEqual([]);
      expect(check({ city: 'paris' })).toEqual(['parameters.city: must match pattern "^[A-Z]"']);
      expect(() => fresh.compileChecker({ ...dialect, type: 'object', properties: { city: { type: 'strin' } } })).toThrow(/must be equal to one of the allowed values/);
      expect(() => fresh.compileChecker({ ...dialect, type: 'object', properites: {} })).toThrow(fresh.SchemaCompileError);
    }
  });
});

describe('compileChecker: compile errors', () => {
  const cases: Record<string, { schema: Record<string, unknown>; message: RegExp }> = {
    'a 2019-09 keyword in draft-07': { schema: { type: 'object', dependentRequired: {} }, message: /^strict mode: unknown keyword: "dependentRequired"$/ },
    'a tuple "items" in 2020-12': { schema: { $schema: DRAFT_2020, type: 'object', properties: { t: { items: [{}] } } }, message: /^schema is invalid: parameters\/properties\/t\/items must be object,boolean$/ },
    'a typo deep inside': { schema: { type: 'object', properties: { a: { anyOf: [{ type: 'string', maxLenght: 3 }] } } }, message: /unknown keyword: "maxLenght"/ },
    'a pattern that is not a regular expression': { schema: { type: 'object', patternProperties: { '(': {} } }, message: /Invalid regular expression/ },
    'a $ref to nothing': { schema: { type: 'object', properties: { a: { $ref: '#/definitions/nope' } } }, message: /^can't resolve reference #\/definitions\/nope$/ },
    'a $dynamicRef': { schema: { $schema: DRAFT_2020, type: 'object', properties: { a: { $dynamicRef: '#m' } } }, message: /"\$dynamicRef" is not supported/ },
    '"if" alone': { schema: { type: 'object', if: { required: ['a'] } }, message: /"if" without "then" and "else" is ignored/ },
    '"nullable" without "type"': { schema: { type: 'object', properties: { a: { nullable: true } } }, message: /"nullable" cannot be used without "type"/ },
    'a value that is not JSON': { schema: { type: 'object', description: undefined }, message: /^schema is not plain JSON: Instances of "undefined" type are not supported/ },
    'a negative length in 2019-09': { schema: { $schema: DRAFT_2019, type: 'object', properties: { a: { minLength: -1 } } }, message: /^schema is invalid: parameters\/properties\/a\/minLength must be >= 0$/ },
  };
  for (const [name, { schema, message }] of Object.entries(cases)) {
    it(name, () => expect(compileError(schema)).toMatch(message));
  }

  it('names the schema after the root in meta-schema errors', () => {
    expect(() => compileChecker({ type: 'object', required: 'a' }, 'args')).toThrow('schema is invalid: args/required must be array');
  });

  it('leaves the schema as it was', () => {
    const schema = { type: 'object', $id: 'https://example.com/a', properties: { a: { $ref: '#/$defs/s', format: 'email' } }, $defs: { s: { type: 'string' } } };
    const before = JSON.stringify(schema);
    compileChecker(schema);
    expect(JSON.stringify(schema)).toBe(before);
    expect(Object.getOwnPropertyNames(schema.properties.a)).toEqual(['$ref', 'format']);
  });
});

describe('compileChecker: checks', () => {
  const cases: Record<string, { schema: Record<string, unknown>; value: unknown; problems: string[] }> = {
    'format is an annotation in every dialect': {
      schema: { $schema: DRAFT_2020, type: 'object', properties: { to: { type: 'string', format: 'email' } } },
      value: { to: 'not an address' },
      problems: [],
    },
    "draft-07 $ref's siblings apply": {
      schema: { type: 'object', properties: { a: { $ref: '#/definitions/s', maxLength: 2 } }, definitions: { s: { type: 'string' } } },
      value: { a: 'abc' },
      problems: ['parameters.a: must NOT have more than 2 characters'],
    },
    'nullable admits null': { schema: { type: 'object', properties: { a: { type: 'string', nullable: true } } }, value: { a: null }, problems: [] },
    'nullable still checks the type': {
      schema: { type: 'object', properties: { a: { type: 'string', nullable: true } } },
      value: { a: 1 },
      problems: ['parameters.a: must be string,null'],
    },
    'paths escape odd keys': {
      schema: { type: 'object', properties: { a: { type: 'array', items: { type: 'object', properties: { 'b/c': { type: 'string' }, '%': { type: 'string' } } } } } },
      value: { a: [{ 'b/c': 1, '%': 2 }] },
      problems: ['parameters.a[0]["b/c"]: must be string', 'parameters.a[0]["%"]: must be string'],
    },
    'an anyOf lists its branches first': {
      schema: { type: 'object', properties: { b: { anyOf: [{ type: 'string' }, { type: 'number' }] } } },
      value: { b: true },
      problems: ['parameters.b: must be string', 'parameters.b: must be number', 'parameters.b: must match a schema in anyOf'],
    },
    'a closed tuple': {
      schema: { type: 'object', properties: { t: { type: 'array', items: [{ type: 'string' }], additionalItems: false } } },
      value: { t: ['a', 'b'] },
      problems: ['parameters.t: must NOT have more than 1 items'],
    },
    '2020-12 prefixItems and unevaluatedProperties': {
      schema: { $schema: DRAFT_2020, type: 'object', properties: { t: { prefixItems: [{ type: 'string' }], items: false } }, unevaluatedProperties: false },
      value: { t: [1, 2], x: 0 },
      problems: ['parameters: must NOT have unevaluated properties', 'parameters.t: must NOT have more than 1 items', 'parameters.t[0]: must be string'],
    },
    '2019-09 recursion': {
      schema: { $schema: DRAFT_2019, $recursiveAnchor: true, type: 'object', properties: { kids: { type: 'array', items: { $recursiveRef: '#' } }, n: { type: 'integer' } } },
      value: { kids: [{ kids: [{ n: 1.5 }] }] },
      problems: ['parameters.kids[0].kids[0].n: must be integer'],
    },
    'dependencies, uniqueness, const': {
      schema: { type: 'object', dependencies: { a: ['b'] }, properties: { l: { uniqueItems: true }, c: { const: 'x' } } },
      value: { a: 1, l: [1, 2, 1], c: 'y' },
      problems: ['parameters: must have property b when property a is present', 'parameters.l: must NOT have duplicate items (items ## 0 and 2 are identical)', 'parameters.c: must be "x"'],
    },
    'a value that is not JSON is a problem, not a throw': {
      schema: { type: 'object', properties: { n: { type: 'number' } } },
      value: { n: 1n },
      problems: ['parameters: cannot be checked (Instances of "bigint" type are not supported.)'],
    },
  };
  for (const [name, { schema, value, problems }] of Object.entries(cases)) {
    it(name, () => expect(compileChecker(schema)(value)).toEqual(problems));
  }

  it(`lists at most ${MAX_LISTED_PROBLEMS} problems and counts the rest`, () => {
    const names = Array.from({ length: MAX_LISTED_PROBLEMS + 2 }, (_, i) => `p${i}`);
    const problems = compileChecker({ type: 'object', required: names })({});
    expect(problems).toHaveLength(MAX_LISTED_PROBLEMS + 1);
    expect(problems.at(-1)).toBe('and 2 more problems');
  });
});
