/**
 * The package's engine entry (`llama-agent-web` and `llama-agent-web/engine`): the engine worker and
 * its client. `startEngine({ assets })` starts the worker (its script ships beside this module; a
 * bundler that understands `new Worker(new URL(…, import.meta.url))` picks it up) and points it at the
 * heavy assets under `assets`.
 */
import { EngineClient } from '../engine/client';
import { assetUrls } from './asset-urls';

export interface StartEngineOptions {
  /** Base URL of the folder holding models/, ort/ and pyodide/ (`npx llama-agent-assets copy public/llama-assets`). */
  assets: string;
}

export function startEngine(options: StartEngineOptions): EngineClient {
  const { modelsBaseUrl, wasmBaseUrl } = assetUrls(options.assets);
  return EngineClient.start({ modelsBaseUrl, wasmBaseUrl });
}

export { assetUrls, type AssetUrls } from './asset-urls';
export { EngineClient, type EngineClientOptions } from '../engine/client';
export { EngineError, isAbortError, type EngineErrorCode } from '../engine/errors';
export { MODELS } from '../engine/models';
export type { ModelEntry } from '../engine/model-list';
export type {
  EngineApi,
  EngineConfig,
  EngineLike,
  GenerateRequest,
  GenerateResult,
  GenerateStats,
  GpuCapabilities,
  LoadedModelInfo,
  LoadOptions,
  LoadProgress,
  LogitsProcessorSpec,
  ModelRef,
  OnnxDevice,
  SamplingParams,
  StopReason,
} from '../engine/contract';
