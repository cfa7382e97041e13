/**
 * Example prompts for the empty chat, per model: data (models/examples.json), validated on load. Keys
 * are a model id, a model family, or "default" (the real Llama models); each example names the
 * built-in tools it needs, so a model is only offered questions it can answer with the tools that
 * are on (the micro model knows only its small world, and only through its tools).
 *
 * Invariants: every key names a model or family of models/models.json, or "default"; every example
 * has non-empty text and only built-in tool names; lookup is model id, then family, then "default".
 */
import examplesJson from '../../models/examples.json';
import { BUILTIN_TOOL_NAMES, type BuiltinToolName } from '../format/builtin-tools';
import type { ModelEntry } from './model-list';
import { MODELS } from './models';

export interface ModelExample {
  text: string;
  /** The built-in tools this question needs; [] for none. */
  tools: BuiltinToolName[];
}

export type ModelExamples = Record<string, ModelExample[]>;

/** Validates a parsed examples.json against the model list; throws an Error naming the first bad entry. */
export function parseModelExamples(value: unknown, models: readonly ModelEntry[]): ModelExamples {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('examples.json: expected an object keyed by model id, family or "default"');
  const keys = new Set(['default', ...models.map((m) => m.id), ...models.map((m) => m.family)]);
  const out: ModelExamples = {};
  for (const [key, list] of Object.entries(value as Record<string, unknown>)) {
    if (!keys.has(key)) throw new Error(`examples.json.${key}: not a model id, a family or "default"`);
    if (!Array.isArray(list)) throw new Error(`examples.json.${key}: expected an array of examples`);
    out[key] = list.map((raw, i) => {
      const where = `examples.json.${key}[${i}]`;
      const e = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
      if (typeof e.text !== 'string' || e.text.trim() === '') throw new Error(`${where}.text: expected a non-empty string`);
      if (!Array.isArray(e.tools) || !e.tools.every((t) => (BUILTIN_TOOL_NAMES as readonly unknown[]).includes(t))) {
        throw new Error(`${where}.tools: expected built-in tool names (${BUILTIN_TOOL_NAMES.join(', ')})`);
      }
      return { text: e.text, tools: [...(e.tools as BuiltinToolName[])] };
    });
  }
  return out;
}

/** The examples `model` can answer with the tools that are on. */
export function examplesFor(examples: ModelExamples, model: ModelEntry, enabled: (tool: BuiltinToolName) => boolean): ModelExample[] {
  const list = examples[model.id] ?? examples[model.family] ?? examples.default ?? [];
  return list.filter((e) => e.tools.every(enabled));
}

export const MODEL_EXAMPLES: ModelExamples = parseModelExamples(examplesJson, MODELS);
