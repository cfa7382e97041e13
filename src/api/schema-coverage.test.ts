/**
 * What constrained decoding promises for JSON Schema, measured on the official JSON Schema Test Suite
 * (the `json-schema-test-suite` package, draft 4, plus each value-keyword group again with the type it
 * applies to declared): every schema is refused up front, refused by the compiler, or compiled — and
 * for a compiled one the grammar rejects every instance the suite says is invalid, except where the
 * schema uses a bound that is validated after generation (VALIDATED_KEYWORDS), and there the final
 * validation rejects it: a reply can never violate a schema that was accepted. How many valid
 * instances the grammar accepts is reported (strict mode generates a subset: no undeclared properties).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { pythonJson } from '../format/python-json';
import { nodeGrammars } from '../../worker/grammar/node-grammars';
import { loadXGrammarNode } from '../../worker/grammar/xgrammar-node';
import { ApiError } from './api-error';
import { checkReply } from './response-format';
import { checkSchemaCoverage, VALIDATED_KEYWORDS } from './schema-coverage';
import type { JsonObject } from './openai/fields';

interface Group {
  description: string;
  schema: unknown;
  tests: Array<{ description: string; data: unknown; valid: boolean }>;
}

const SUITE = join(dirname(createRequire(import.meta.url).resolve('json-schema-test-suite/package.json')), 'tests/draft4');
const TYPED: Record<string, string> = { minLength: 'string', maxLength: 'string', pattern: 'string', minimum: 'number', maximum: 'number', minItems: 'array', maxItems: 'array', minProperties: 'object', maxProperties: 'object' };
const jsonType = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v);

/** The suite's groups, and each value-keyword group again with its type declared (instances of other types then invalid). */
function groups(): Array<Group & { file: string }> {
  const out: Array<Group & { file: string }> = [];
  for (const file of readdirSync(SUITE).filter((f) => f.endsWith('.json'))) {
    for (const group of JSON.parse(readFileSync(join(SUITE, file), 'utf8')) as Group[]) {
      out.push({ ...group, file });
      const schema = group.schema as JsonObject;
      const keyword = typeof schema === 'object' && !('type' in schema) ? Object.keys(schema).find((k) => TYPED[k]) : undefined;
      if (keyword) {
        const type = TYPED[keyword]!;
        out.push({ file, description: `${group.description} (typed)`, schema: { ...schema, type }, tests: group.tests.map((t) => ({ ...t, valid: t.valid && jsonType(t.data) === type })) });
      }
    }
  }
  return out;
}

const usesValidatedKeyword = (schema: unknown): boolean => VALIDATED_KEYWORDS.some((k) => JSON.stringify(schema).includes(`"${k}"`));
const rejectedAfter = (schema: JsonObject, data: unknown): boolean => {
  try {
    checkReply(pythonJson(data), { type: 'json_schema', schema });
    return false;
  } catch {
    return true;
  }
};

describe('JSON Schema coverage of constrained decoding (JSON Schema Test Suite, draft 4)', () => {
  beforeAll(() => nodeGrammars().start());

  it('a schema that is not refused compiles to a grammar that rejects every invalid instance', async () => {
    const xg = await loadXGrammarNode();
    const n = { schemas: 0, refused: 0, notCompiled: 0, compiled: 0, valid: 0, validAccepted: 0, invalid: 0, invalidRejected: 0, invalidCaughtAfter: 0 };
    const admitted: string[] = [];
    for (const group of groups()) {
      n.schemas++;
      try {
        if (typeof group.schema === 'object') checkSchemaCoverage(group.schema as JsonObject, 'schema');
      } catch (e) {
        expect(e).toBeInstanceOf(ApiError);
        n.refused++;
        continue;
      }
      const compiled = await nodeGrammars()
        .compile({ kind: 'json_schema', schema: group.schema as JsonObject, strict: true })
        .catch((e: unknown) => {
          expect((e as { code?: string }).code).toBe('invalid_constraint');
          return null;
        });
      if (!compiled) {
        n.notCompiled++;
        continue;
      }
      n.compiled++;
      for (const t of group.tests) {
        const accepted = await xg.Testings.isGrammarAcceptString(compiled.grammar(), pythonJson(t.data));
        if (t.valid) {
          n.valid++;
          if (accepted) n.validAccepted++;
        } else {
          n.invalid++;
          if (!accepted) n.invalidRejected++;
          else if (usesValidatedKeyword(group.schema) && rejectedAfter(group.schema as JsonObject, t.data)) n.invalidCaughtAfter++;
          else admitted.push(`${group.file}: ${group.description} / ${t.description}`);
        }
      }
    }
    console.log(`[schema coverage] ${JSON.stringify(n)}`);
    expect(admitted).toEqual([]);
    expect(n.compiled).toBeGreaterThanOrEqual(30);
    expect(n.invalid).toBeGreaterThanOrEqual(70);
  }, 120_000);

  const refusals: Record<string, { schema: JsonObject; names: RegExp }> = {
    'pattern beside minLength': { schema: { type: 'string', pattern: '^a+$', minLength: 2 }, names: /"pattern" beside "minLength"/ },
    'a format the grammar does not know': { schema: { type: 'string', format: 'iri' }, names: /the format "iri"/ },
    'an unenforced keyword, nested': { schema: { type: 'object', properties: { tags: { type: 'array', uniqueItems: true } } }, names: /"uniqueItems" \(at \/properties\/tags\)/ },
    'a value keyword without its type': { schema: { properties: { city: { maxLength: 5 } } }, names: /"maxLength" without "type": "string"/ },
    'draft 4 exclusive bounds': { schema: { type: 'number', maximum: 3, exclusiveMaximum: true }, names: /boolean "exclusiveMaximum"/ },
    'a remote $ref': { schema: { $ref: 'http://example.test/s.json' }, names: /\$ref "http:\/\/example.test\/s.json"/ },
    'a keyword beside anyOf': { schema: { type: 'string', anyOf: [{ type: 'string', maxLength: 2 }] }, names: /"type" beside "anyOf"/ },
  };
  for (const [name, { schema, names }] of Object.entries(refusals)) {
    it(`refused with its name and place: ${name}`, () => {
      expect(() => checkSchemaCoverage(schema, 'response_format.json_schema.schema')).toThrow(names);
    });
  }

  it('names that look like keywords are names inside properties', () => {
    const schema = { type: 'object', properties: { not: { type: 'string' }, pattern: { type: 'string' } } };
    expect(checkSchemaCoverage(schema, 'x')).toBe(schema);
  });
});
