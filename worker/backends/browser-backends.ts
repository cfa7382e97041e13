import type { EngineConfig } from '../../src/engine/contract';
import { EngineError } from '../../src/engine/errors';
import type { Backend, BackendLoadContext } from './backend';
import { createRemoteBackend } from './remote-backend';
import { createWebLlmBackend } from './webllm-backend';

/**
 * The backends a browser can run, chosen by the model entry. An engine server is reached without a
 * key (the page never holds one: its own /api/engine/ adds it); a path such as `/api/engine/`
 * resolves against the site the models come from, which is also where a widget's proxy lives.
 * The ONNX backend (transformers.js and onnxruntime-web) and WebLLM load with the first model that needs them.
 */
export function createBrowserBackend(ctx: BackendLoadContext, config: EngineConfig): Promise<Backend> {
  const { entry } = ctx;
  if (entry.backend === 'webllm') return createWebLlmBackend(ctx, config);
  if (entry.backend === 'remote') {
    const url = new URL(entry.url, config.modelsBaseUrl).href;
    return createRemoteBackend({ url, ...(entry.serverModel ? { model: entry.serverModel } : {}) }, ctx.signal);
  }
  if (entry.backend === 'llamacpp') {
    return Promise.reject(new EngineError('load_failed', `${entry.id} is a GGUF file: it runs with node-llama-cpp in Node (the CLI's --model FILE.gguf), not in a browser`));
  }
  return import('./onnx-backend').then(({ createOnnxBackend }) => createOnnxBackend(ctx, { localModelPath: config.modelsBaseUrl, wasmBase: config.wasmBaseUrl, allowRemote: true }));
}
