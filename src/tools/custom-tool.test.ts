import { describe, expect, it } from 'vitest';
import { customToolsUserContent } from '../format/custom-tools';
import { CustomToolDefinitionError, defineCustomTool, toolSchemaForPrompt, type CustomToolSpec } from './custom-tool';
import { ToolError } from './tool';

const context = { signal: new AbortController().signal };

const weatherSchema = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name' },
    units: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 7 },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['city'],
  additionalProperties: false,
};

function spec(overrides: Partial<CustomToolSpec> = {}): CustomToolSpec {
  return { name: 'get_weather', description: 'Current weather for a city', parameters: weatherSchema, execute: (args) => ({ ok: true, args }), ...overrides };
}

describe('defineCustomTool: registration', () => {
  const bad: Record<string, { spec: () => CustomToolSpec; field: string; message: RegExp }> = {
    'name with a dash': { spec: () => spec({ name: 'get-weather' }), field: 'name', message: /must be an identifier .* got "get-weather"/ },
    'name starting with a digit': { spec: () => spec({ name: '1tool' }), field: 'name', message: /must be an identifier/ },
    'empty name': { spec: () => spec({ name: '' }), field: 'name', message: /must be an identifier/ },
    'name too long': { spec: () => spec({ name: 'a'.repeat(65) }), field: 'name', message: /at most 64 characters/ },
    'name not a string': { spec: () => spec({ name: 7 as unknown as string }), field: 'name', message: /got 7/ },
    'a built-in name': { spec: () => spec({ name: 'brave_search' }), field: 'name', message: /"brave_search" is the name of a Llama 3.1 built-in tool/ },
    'blank description': { spec: () => spec({ description: '  ' }), field: 'description', message: /^custom tool "get_weather": description must be a non-empty string/ },
    'no execute': { spec: () => spec({ execute: undefined as unknown as CustomToolSpec['execute'] }), field: 'execute', message: /execute must be a function/ },
    'parameters not an object': { spec: () => spec({ parameters: [] as unknown as Record<string, unknown> }), field: 'parameters', message: /parameters must be a JSON schema object/ },
    'parameters not an object schema': { spec: () => spec({ parameters: { type: 'string' } }), field: 'parameters', message: /must have "type": "object" .* got "string"/ },
    'parameters without a type': { spec: () => spec({ parameters: { properties: {} } }), field: 'parameters', message: /got no type/ },
    'invalid type name': {
      spec: () => spec({ parameters: { type: 'object', properties: { city: { type: 'strin' } } } }),
      field: 'parameters',
      message: /parameters is not a valid JSON schema: schema is invalid: parameters\/properties\/city\/type must be equal to one of the allowed values/,
    },
    'required not a list': { spec: () => spec({ parameters: { type: 'object', required: 'city' } }), field: 'parameters', message: /not a valid JSON schema: .*required must be array/ },
    'a typo in a keyword': { spec: () => spec({ parameters: { type: 'object', properites: {} } }), field: 'parameters', message: /unknown keyword: "properites"/ },
    'an unsupported dialect': { spec: () => spec({ parameters: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' } }), field: 'parameters', message: /unsupported "\$schema"/ },
    'not plain JSON': {
      spec: () => {
        const cyclic: Record<string, unknown> = { type: 'object' };
        cyclic.self = cyclic;
        return spec({ parameters: cyclic });
      },
      field: 'parameters',
      message: /must be plain JSON/,
    },
  };
  for (const [name, c] of Object.entries(bad)) {
    it(`rejects ${name}`, () => {
      let error: unknown;
      try {
        defineCustomTool(c.spec());
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(CustomToolDefinitionError);
      expect(error).toMatchObject({ name: 'CustomToolDefinitionError', field: c.field });
      expect((error as Error).message).toMatch(c.message);
    });
  }

  const good: Record<string, Record<string, unknown>> = {
    'an object schema with no properties': { type: 'object' },
    'descriptions, defaults, examples and formats (formats are annotations)': {
      type: 'object',
      description: 'x',
      properties: { to: { type: 'string', format: 'email', default: 'a@b.c', examples: ['x@y.z'] } },
    },
    '2020-12 dialect': { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { a: { type: 'string' } }, $defs: {} },
    'two tools with the same $id': { $id: 'https://example.com/args', type: 'object' },
  };
  for (const [name, parameters] of Object.entries(good)) {
    it(`accepts ${name}`, () => {
      expect(defineCustomTool(spec({ parameters })).parameters).toEqual(parameters);
      expect(() => defineCustomTool(spec({ parameters }))).not.toThrow();
    });
  }
});

describe('defineCustomTool: calls', () => {
  const invalid: Record<string, { args: Record<string, unknown>; problems: string[] }> = {
    'wrong type': { args: { city: 3 }, problems: ['parameters.city: must be string'] },
    'missing required': { args: {}, problems: ['parameters.city: is required'] },
    'not in enum': { args: { city: 'Paris', units: 'kelvin' }, problems: ['parameters.units: must be one of "celsius", "fahrenheit"'] },
    'out of range': { args: { city: 'Paris', days: 9 }, problems: ['parameters.days: must be <= 7'] },
    'array item': { args: { city: 'Paris', tags: ['a', 2] }, problems: ['parameters.tags[1]: must be string'] },
    'unexpected property': { args: { city: 'Paris', country: 'FR' }, problems: ['parameters: has an unexpected property "country"'] },
    'several problems, all listed': {
      args: { city: 1, days: 0, extra: true },
      problems: ['parameters: has an unexpected property "extra"', 'parameters.city: must be string', 'parameters.days: must be >= 1'],
    },
  };
  for (const [name, { args, problems }] of Object.entries(invalid)) {
    it(`invalid arguments (${name}) are a ToolError and the host is not called`, async () => {
      let called = false;
      const tool = defineCustomTool(spec({ execute: () => (called = true) }));
      const error = await tool.execute(args, context).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ToolError);
      expect((error as ToolError).message).toBe(`invalid arguments for get_weather: ${problems.join('; ')}`);
      expect(called).toBe(false);
    });
  }

  it('odd property names are quoted in paths', async () => {
    const tool = defineCustomTool(spec({ parameters: { type: 'object', properties: { 'a b': { type: 'object', properties: { c: { type: 'number' } } } } } }));
    await expect(tool.execute({ 'a b': { c: 'x' } }, context)).rejects.toThrow('parameters["a b"].c: must be number');
  });

  it('valid arguments reach the host with the context, and its value comes back', async () => {
    let seen: unknown;
    const tool = defineCustomTool(
      spec({
        execute(args, ctx) {
          seen = ctx;
          return Promise.resolve(`weather in ${String(args.city)}`);
        },
      }),
    );
    expect(await tool.execute({ city: 'Paris', units: 'celsius', days: 3, tags: ['x'] }, context)).toBe('weather in Paris');
    expect(seen).toBe(context);
  });

  it("the host's throw passes through", async () => {
    const tool = defineCustomTool(spec({ execute: () => Promise.reject(new ToolError('city not found', { city: 'Atlantis' })) }));
    await expect(tool.execute({ city: 'Atlantis' }, context)).rejects.toMatchObject({ message: 'city not found', details: { city: 'Atlantis' } });
  });

  it("the host's later edits to its schema change nothing", async () => {
    const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const tool = defineCustomTool(spec({ parameters }));
    parameters.required = [];
    (parameters.properties.city as { type: string }).type = 'number';
    expect(tool.parameters).toEqual({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
    await expect(tool.execute({}, context)).rejects.toThrow('parameters.city: is required');
  });
});

describe('needsConfirmation: tools that send data out or change things default to needing confirmation', () => {
  const cases: Record<string, { readOnly?: boolean; needsConfirmation?: boolean; expected: boolean }> = {
    'not declared: asks': { expected: true },
    'readOnly: true: does not ask': { readOnly: true, expected: false },
    'readOnly: false: asks': { readOnly: false, expected: true },
    'explicit false wins': { needsConfirmation: false, expected: false },
    'explicit true wins over readOnly': { readOnly: true, needsConfirmation: true, expected: true },
  };
  for (const [name, { expected, ...flags }] of Object.entries(cases)) {
    it(name, () => expect(defineCustomTool(spec(flags)).needsConfirmation).toBe(expected));
  }
});

describe('toolSchemaForPrompt', () => {
  it('is the OpenAI-style function object, keys in order', () => {
    const schema = toolSchemaForPrompt(defineCustomTool(spec({ parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } })));
    expect(JSON.stringify(schema)).toBe(
      '{"type":"function","function":{"name":"get_weather","description":"Current weather for a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}',
    );
  });

  it('renders in the custom-tools block as 4-space-indented JSON', () => {
    const content = customToolsUserContent([toolSchemaForPrompt(defineCustomTool(spec({ parameters: { type: 'object' } })))], 'Hi');
    expect(content).toContain('{\n    "type": "function",\n    "function": {\n        "name": "get_weather",');
  });
});
