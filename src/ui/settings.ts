/**
 * The user's settings: sampling, which tools are on, loop bounds, the tool proxy and the device.
 * Stored as JSON; `parseSettings` accepts anything and returns valid settings (an out-of-range or
 * missing field takes its default), so a stale or hand-edited store never breaks the page.
 */
import type { OnnxDevice, SamplingParams } from '../engine/contract';
import { QUERY_TOOL_NAMES, type BuiltinToolName } from '../format/builtin-tools';
import { parseToolProvider, type ToolProvider } from '../tools/tool-provider';
import { safeLocalStorage } from './page-memory';

export type BuiltinToolId = BuiltinToolName;
/** The built-in tools as the settings list them: the code interpreter first (it runs here, nothing leaves the page). */
export const BUILTIN_TOOL_IDS: readonly BuiltinToolId[] = ['code_interpreter', ...QUERY_TOOL_NAMES];

export interface Settings {
  temperature: number;
  topP: number;
  topK: number;
  minP: number;
  /** Generation steps per answer (each tool round is a step). */
  maxSteps: number;
  maxTokensPerStep: number;
  tools: Record<BuiltinToolId, boolean>;
  /** Who answers search and math: the services (proxy), this device (local index, mathjs), or auto (tool-provider.ts). */
  searchAndMath: ToolProvider;
  /** Base URL of the tool proxy (`/api/tools/` on the dev and preview servers). */
  proxyEndpoint: string;
  /** Where ONNX models run; web-llm models always use WebGPU. */
  device: Exclude<OnnxDevice, 'cpu'>;
}

export const DEFAULT_SETTINGS: Settings = {
  temperature: 0.6,
  topP: 0.9,
  topK: 0,
  minP: 0,
  maxSteps: 8,
  maxTokensPerStep: 1024,
  tools: { code_interpreter: true, brave_search: true, wolfram_alpha: true },
  searchAndMath: 'auto',
  proxyEndpoint: '/api/tools/',
  device: 'auto',
};

/** Field → [min, max, integer]. */
const RANGES: Record<'temperature' | 'topP' | 'topK' | 'minP' | 'maxSteps' | 'maxTokensPerStep', [number, number, boolean]> = {
  temperature: [0, 2, false],
  topP: [0, 1, false],
  topK: [0, 1000, true],
  minP: [0, 1, false],
  maxSteps: [1, 32, true],
  maxTokensPerStep: [16, 4096, true],
};

export function parseSettings(value: unknown): Settings {
  const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const out: Settings = { ...DEFAULT_SETTINGS, tools: { ...DEFAULT_SETTINGS.tools } };
  for (const [key, [min, max, integer]] of Object.entries(RANGES) as Array<[keyof typeof RANGES, [number, number, boolean]]>) {
    const n = v[key];
    if (typeof n === 'number' && Number.isFinite(n) && n >= min && n <= max && (!integer || Number.isInteger(n))) out[key] = n;
  }
  const tools = (typeof v.tools === 'object' && v.tools !== null ? v.tools : {}) as Record<string, unknown>;
  for (const id of BUILTIN_TOOL_IDS) if (typeof tools[id] === 'boolean') out.tools[id] = tools[id];
  out.searchAndMath = parseToolProvider(v.searchAndMath) ?? DEFAULT_SETTINGS.searchAndMath;
  if (typeof v.proxyEndpoint === 'string' && v.proxyEndpoint.trim() !== '') out.proxyEndpoint = v.proxyEndpoint.trim();
  if (v.device === 'auto' || v.device === 'webgpu' || v.device === 'wasm') out.device = v.device;
  return out;
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
