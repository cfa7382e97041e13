/**
 * The user's settings: sampling, which tools are on, loop bounds, the context policy, the tool proxy
 * and the device.
 * Stored as JSON; `parseSettings` accepts anything and returns valid settings (an out-of-range or
 * missing field takes its default), so a stale or hand-edited store never breaks the page.
 */
import * as v from 'valibot';
import { CONTEXT_POLICIES } from '../agent/context-policy';
import type { OnnxDevice, SamplingParams } from '../engine/contract';
import { QUERY_TOOL_NAMES, type BuiltinToolName } from '../format/builtin-tools';
import { toolProviderSchema } from '../tools/tool-provider';
import { safeLocalStorage } from './page-memory';

export type BuiltinToolId = BuiltinToolName;
/** The built-in tools as the settings list them: the code interpreter first (it runs here, nothing leaves the page). */
export const BUILTIN_TOOL_IDS: readonly BuiltinToolId[] = ['code_interpreter', ...QUERY_TOOL_NAMES];

/** A number in [min, max] (an integer when `integer`); anything else takes `fallback`. */
const inRange = (min: number, max: number, integer: boolean, fallback: number) =>
  v.fallback(
    v.pipe(
      v.number(),
      v.finite(),
      v.minValue(min),
      v.maxValue(max),
      v.check((n) => !integer || Number.isInteger(n)),
    ),
    fallback,
  );
const on = v.fallback(v.boolean(), true);
const toolsOn = v.object({ code_interpreter: on, brave_search: on, wolfram_alpha: on } satisfies Record<BuiltinToolId, unknown>);

const settingsFields = v.object({
  temperature: inRange(0, 2, false, 0.6),
  topP: inRange(0, 1, false, 0.9),
  topK: inRange(0, 1000, true, 0),
  minP: inRange(0, 1, false, 0),
  /** Generation steps per answer (each tool round is a step). */
  maxSteps: inRange(1, 32, true, 8),
  maxTokensPerStep: inRange(16, 4096, true, 1024),
  /** What goes when a step would not fit the context window (agent/context-policy.ts). */
  contextPolicy: v.fallback(v.picklist(CONTEXT_POLICIES), 'rolling'),
  tools: v.fallback(toolsOn, () => v.parse(toolsOn, {})),
  /** Who answers search and math: the services (proxy), this device (local index, mathjs), or auto (tool-provider.ts). */
  searchAndMath: v.fallback(toolProviderSchema, 'auto'),
  /** Ask before tool calls answered on this device too (default off: nothing leaves the device, so nothing is asked). */
  confirmOnDevice: v.fallback(v.boolean(), false),
  /** Base URL of the tool proxy (`/api/tools/` on the dev and preview servers). */
  proxyEndpoint: v.fallback(v.pipe(v.string(), v.trim(), v.nonEmpty()), '/api/tools/'),
  /** Where ONNX models run (never the CPU: that is Node's); web-llm models always use WebGPU. */
  device: v.fallback(v.picklist(['auto', 'webgpu', 'wasm'] satisfies OnnxDevice[]), 'auto'),
});

/** Settings from anything: a field that is missing, of the wrong type or out of range takes its default. */
const settingsSchema = v.fallback(settingsFields, () => v.parse(settingsFields, {}));

export type Settings = v.InferOutput<typeof settingsSchema>;

/** Every field at its default (each call of parseSettings returns a fresh object). */
export const DEFAULT_SETTINGS: Settings = v.parse(settingsSchema, {});

export function parseSettings(value: unknown): Settings {
  return v.parse(settingsSchema, value);
}

export function samplingOf(s: Settings): SamplingParams {
  return { temperature: s.temperature, topP: s.topP, topK: s.topK, minP: s.minP };
}

/** A small persistent store (localStorage on the page; none in the widget). */
export interface SettingsStore {
  load(): Settings;
  save(settings: Settings): void;
}

export function localSettingsStore(key = 'llama-agent:settings', storage: Storage | null = safeLocalStorage()): SettingsStore {
  return {
    load() {
      try {
        return parseSettings(JSON.parse(storage?.getItem(key) ?? 'null'));
      } catch {
        return parseSettings(null);
      }
    },
    save(settings) {
      try {
        storage?.setItem(key, JSON.stringify(settings));
      } catch {
        // Storage full or denied: settings last for this page only.
      }
    },
  };
}
