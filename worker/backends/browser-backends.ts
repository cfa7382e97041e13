import type { EngineConfig } from '../../src/engine/contract';
import type { Backend, BackendLoadContext } from './backend';
import { createOnnxBackend } from './onnx-backend';
import { createWebLlmBackend } from './webllm-backend';

/** The backends a browser can run, chosen by the model entry. */
export function createBrowserBackend(ctx: BackendLoadContext, config: EngineConfig): Promise<Backend> {
  if (ctx.entry.backend === 'webllm') return createWebLlmBackend(ctx, config);
  return createOnnxBackend(ctx, { localModelPath: config.modelsBaseUrl, wasmBase: config.wasmBaseUrl, allowRemote: true });
}
