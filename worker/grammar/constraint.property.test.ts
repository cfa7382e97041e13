/**
 * Constrained decoding on the tiny random-weight model, which wanders anywhere the mask allows: over
 * generated tool sets, schemas and choices, every finished reply is what its constraint promises —
 * each call names an offered tool and its arguments validate; `none` never calls; `required` always
 * does; a JSON-schema reply is valid JSON of its schema.
 */
import { Validator } from '@cfworker/json-schema';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConstrainedBuiltin, ConstrainedTool, Constraint } from '../../src/engine/contract';
import { parseEmitted } from '../../src/format/parse';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import { createNodeEngine } from '../create-node-engine';
import type { Engine } from '../engine';

const tokenizer = loadTokenizer();
let engine: Engine;
beforeAll(async () => {
  engine = createNodeEngine();
  await engine.load('tiny-llama');
});
afterAll(() => engine?.unload());

const PROMPT = [128000, ...tokenizer.encode('Call a tool.')];

/** Property schemas from the keywords the grammar enforces. */
const propertySchema: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.constant({ type: 'string' }),
  fc.integer({ min: 1, max: 12 }).map((maxLength) => ({ type: 'string', maxLength })),
  fc.constant({ type: 'boolean' }),
  fc.constant({ type: 'integer', minimum: 0, maximum: 999 }),
  fc.uniqueArray(fc.constantFrom('Monday', 'Tuesday', 'red', 'EUR', '42'), { minLength: 1, maxLength: 4 }).map((values) => ({ enum: values })),
  fc.constant({ type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] }),
);

const parametersSchema = fc
  .dictionary(fc.constantFrom('city', 'day', 'count', 'flag', 'unit'), propertySchema, { maxKeys: 3 })
  .chain((properties) =>
    fc.subarray(Object.keys(properties)).map((required) => ({ type: 'object', properties, required, additionalProperties: false })),
  );

const toolSet = fc.uniqueArray(fc.record({ name: fc.constantFrom('get_weather', 'get_opening_hours', 'convert', 'lookup'), parameters: parametersSchema }), {
  selector: (t) => t.name,
  maxLength: 3,
});
const builtins = fc.subarray<ConstrainedBuiltin>(['brave_search', 'wolfram_alpha', 'code_interpreter']);

const validators = new Map<string, Validator>();
const validates = (schema: object, value: unknown): boolean => {
  const key = JSON.stringify(schema);
  let validator = validators.get(key);
  if (!validator) validators.set(key, (validator = new Validator(schema as never, '2020-12', false)));
  return validator.validate(value).valid;
};

const counts = { generations: 0, finished: 0, calls: 0 };

describe('constrained tool calls on the tiny random model', () => {
  it('every finished call names an offered tool with valid arguments; none never calls; required always does', async () => {
    await fc.assert(
      fc.asyncProperty(
        toolSet,
        builtins,
        fc.constantFrom('auto', 'required', 'required', 'none') as fc.Arbitrary<'auto' | 'required' | 'none'>,
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        async (tools: ConstrainedTool[], offered, mode, seed) => {
          fc.pre(mode !== 'required' || tools.length + offered.length > 0);
          const constraint: Constraint = { type: 'tool_calls', mode, tools, builtins: offered };
          const result = await engine.generate({ tokens: PROMPT, sampling: { temperature: 1, seed }, maxTokens: 28, constraint });
          counts.generations++;
          if (mode === 'none') expect(result.tokens).not.toContain(128010);
          if (result.stop !== 'eom' && result.stop !== 'eot') return;
          counts.finished++;
          const { toolCalls } = parseEmitted(result.tokens, result.stop, tokenizer);
          if (mode === 'none') expect(toolCalls).toEqual([]);
          if (mode === 'required') expect(toolCalls.length).toBeGreaterThan(0);
          for (const call of toolCalls) {
            counts.calls++;
            expect(call.kind).not.toBe('invalid');
            if (call.kind === 'custom') {
              const tool = tools.find((t) => t.name === call.name);
              expect(tool, `called ${call.name}`).toBeDefined();
              expect(validates(tool!.parameters as object, call.arguments), JSON.stringify(call.arguments)).toBe(true);
              expect(result.stop).toBe('eot');
            } else {
              expect(offered).toContain(call.name);
              expect(result.stop).toBe('eom');
            }
          }
        },
      ),
      { numRuns: 650, seed: 41 },
    );
  }, 600_000);

  it('a JSON-schema reply is valid JSON of its schema', async () => {
    await fc.assert(
      fc.asyncProperty(parametersSchema, fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (schema, seed) => {
        const result = await engine.generate({ tokens: PROMPT, sampling: { temperature: 1, seed }, maxTokens: 48, constraint: { type: 'json_schema', schema } });
        counts.generations++;
        if (result.stop !== 'eot') return;
        counts.finished++;
        const text = tokenizer.decode(result.tokens);
        expect(validates(schema, JSON.parse(text)), text).toBe(true);
      }),
      { numRuns: 400, seed: 41 },
    );
    console.log(`[constraint] ${counts.generations} generations, ${counts.finished} finished, ${counts.calls} calls checked`);
    expect(counts.generations).toBeGreaterThanOrEqual(1000);
  }, 600_000);
});
