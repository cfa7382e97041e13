/** The engine as Node runs it (tests, CLI, bench): onnx backend on onnxruntime-node, files from disk. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EngineError } from '../src/engine/errors';
import type { ModelEntry } from '../src/engine/model-list';
import { MODELS } from '../src/engine/models';
import { createOnnxBackend } from './backends/onnx-backend';
import { openNodeSession } from './backends/onnx-node-session';
import { Engine } from './engine';

const MODELS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../models');

export function createNodeEngine(models: readonly ModelEntry[] = MODELS): Engine {
  return new Engine({
    models,
    capabilities: async () => ({ webgpu: false, shaderF16: false, adapter: null, limits: null, reason: 'Node has no WebGPU' }),
    createBackend: async (ctx) => {
      if (ctx.entry.backend !== 'onnx') {
        throw new EngineError('webgpu_unavailable', `${ctx.entry.id} runs on web-llm, which needs WebGPU in a browser`);
      }
      return createOnnxBackend(ctx, { localModelPath: `${MODELS_DIR}/`, allowRemote: false, openLocal: openNodeSession });
    },
  });
}
