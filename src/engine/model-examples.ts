/**
 * Example prompts for the empty chat, per model: data (models/examples.json), validated on load. Keys
 * are a model id, a model family, or "default" (the real Llama models); each example names the
 * built-in tools it needs, so a model is only offered questions it can answer with the tools that
 * are on (the micro model knows only its small world, and only through its tools).
 *
 * Invariants: every key names a model or family of models/models.json, or "default"; every example
 * has non-empty text and only built-in tool names; lookup is model id, then family, then "default".
 */
import * as v from 'valibot';
import examplesJson from '../../models/examples.json';
import { BUILTIN_TOOL_NAMES, type BuiltinToolName } from '../format/builtin-tools';
import { fields, parseFirst, pathText, plainObject } from '../parse/fields';
import type { ModelEntry } from './model-list';
import { MODELS } from './models';

const TEXT = 'expected a non-empty string';
const TOOLS = `expected built-in tool names (${BUILTIN_TOOL_NAMES.join(', ')})`;

const exampleSchema = fields(
  {
    text: v.pipe(v.string(TEXT), v.check((text) => text.trim() !== '', TEXT)),
    /** The built-in tools this question needs; [] for none. */
    tools: v.array(v.picklist(BUILTIN_TOOL_NAMES, TOOLS), TOOLS),
  },
  'expected an example {"text", "tools"}',
);

export type ModelExample = v.InferOutput<typeof exampleSchema>;
export type ModelExamples = Record<string, ModelExample[]>;

/** examples.json for this model list: its keys are the list's ids and families, or "default". */
function examplesSchema(models: readonly ModelEntry[]) {
  const keys = new Set(['default', ...models.map((m) => m.id), ...models.map((m) => m.family)]);
  return v.pipe(
    plainObject<object>('expected an object keyed by model id, family or "default"'),
    v.record(v.pipe(v.string(), v.check((key) => keys.has(key), 'not a model id, a family or "default"')), v.array(exampleSchema, 'expected an array of examples')),
  );
}

/** Validates a parsed examples.json against the model list; throws an Error naming the first bad entry. */
export function parseModelExamples(value: unknown, models: readonly ModelEntry[]): ModelExamples {
  const parsed = parseFirst(examplesSchema(models), value);
  if (!parsed.ok) throw new Error(`${pathText('examples.json', parsed.issue.path)}: ${parsed.issue.message}`);
  return parsed.value;
}

/** The examples `model` can answer with the tools that are on. */
export function examplesFor(examples: ModelExamples, model: ModelEntry, enabled: (tool: BuiltinToolName) => boolean): ModelExample[] {
  const list = examples[model.id] ?? examples[model.family] ?? examples.default ?? [];
  return list.filter((e) => e.tools.every(enabled));
}

export const MODEL_EXAMPLES: ModelExamples = parseModelExamples(examplesJson, MODELS);
