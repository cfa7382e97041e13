/**
 * What the constrained-client tests offer the micro model (tests only): three custom tools' parameter
 * schemas, the questions they are asked, a city reply schema with every field bounded (the micro model
 * would otherwise repeat digits to the token limit), and a JSON Schema check.
 */
import { Validator } from '@cfworker/json-schema';

export const TOOL_SCHEMAS: Record<string, Record<string, unknown>> = {
  get_weather: { type: 'object', properties: { city: { type: 'string', maxLength: 24 }, unit: { enum: ['celsius', 'fahrenheit'] } }, required: ['city'], additionalProperties: false },
  get_opening_hours: { type: 'object', properties: { day: { enum: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] } }, required: ['day'], additionalProperties: false },
  convert_currency: {
    type: 'object',
    properties: { amount: { type: 'number', minimum: 0, maximum: 1000000 }, from: { enum: ['EUR', 'USD', 'GBP'] }, to: { enum: ['EUR', 'USD', 'GBP'] } },
    required: ['amount', 'from', 'to'],
    additionalProperties: false,
  },
};
export const TOOL_NAMES = Object.keys(TOOL_SCHEMAS);

export const TOOL_QUESTIONS = ['What is the weather in Paris?', 'When are you open on Monday?', 'Convert 100 EUR to USD.', 'Hello!', 'What is the capital of Japan?'];

export const CITY_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string', maxLength: 20 }, country: { type: 'string', maxLength: 20 }, population: { type: 'integer', minimum: 0, maximum: 99999999 } },
  required: ['city', 'country', 'population'],
  additionalProperties: false,
} as const;
export type City = { city: string; country: string; population: number };

/** The validation result of `value` against `schema` (draft 2020-12). */
export function validate(schema: unknown, value: unknown): { valid: boolean; errors: unknown[] } {
  return new Validator(schema as never, '2020-12', false).validate(value);
}
