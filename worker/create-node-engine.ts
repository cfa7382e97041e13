/**
 * The engine as Node runs it (tests, CLI, bench): onnx on onnxruntime-node with files from disk, a
 * GGUF on node-llama-cpp (`llamacpp`), or an engine server (`remote`). web-llm needs a browser.
 *
 * Invariant: the engine server's API key comes only from these options (the CLI reads it from the
 * environment); it is never part of a load request or a model entry.
 */
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EngineError } from '../src/engine/errors';
import type { ModelEntry } from '../src/engine/model-list';
import { isSitePath } from '../src/engine/server-url';
import { MODELS } from '../src/engine/models';
import type { BackendFactory } from './backends/backend';
import { createLlamaCppBackend, DEFAULT_CONTEXT } from './backends/llamacpp-backend';
import { createOnnxBackend } from './backends/onnx-backend';
import { openNodeSession } from './backends/onnx-node-session';
import { createRemoteBackend } from './backends/remote-backend';
import { Engine } from './engine';
import { nodeGrammars } from './grammar/node-grammars';

const MODELS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../models');

export interface NodeEngineOptions {
  /**
   * The folder holding the local models (models.json's `path`s, relative GGUF paths) and the tokenizer
   * (llama-3.1-tokenizer/, read by the grammar engine). Default this project's models/.
   */
  modelsDir?: string;
  /** Sent as `Authorization: Bearer …` to an engine server. */
  engineApiKey?: string;
  /** CPU threads for node-llama-cpp (default: every core). */
  llamaCppThreads?: number;
  /** The fetch an engine server is reached with (tests). Default the global one. */
  fetch?: typeof fetch;
}

export function nodeBackendFactory(options: NodeEngineOptions = {}): BackendFactory {
  const modelsDir = resolve(options.modelsDir ?? MODELS_DIR);
  return async (ctx) => {
    const { entry, signal } = ctx;
    if (entry.backend === 'onnx') return createOnnxBackend(ctx, { localModelPath: `${modelsDir}/`, allowRemote: false, openLocal: openNodeSession });
    if (entry.backend === 'llamacpp') {
      const gguf = entry.gguf;
      return createLlamaCppBackend({
        modelPath: isAbsolute(gguf) ? gguf : resolve(modelsDir, gguf),
        contextSize: Math.min(entry.contextWindow, DEFAULT_CONTEXT),
        ...(ctx.options.slots ? { sequences: ctx.options.slots } : {}),
        ...(options.llamaCppThreads ? { threads: options.llamaCppThreads } : {}),
        signal,
      });
    }
    if (entry.backend === 'remote') {
      const url = entry.url;
      if (isSitePath(url)) throw new EngineError('invalid_request', `the engine URL ${url} is a path on a web site; in Node give the whole URL (http://host:port)`);
      return createRemoteBackend(
        {
          url,
          ...(entry.serverModel ? { model: entry.serverModel } : {}),
          ...(options.engineApiKey ? { apiKey: options.engineApiKey } : {}),
          ...(options.fetch ? { fetch: options.fetch } : {}),
        },
        signal,
      );
    }
    throw new EngineError('webgpu_unavailable', `${entry.id} runs on web-llm, which needs WebGPU in a browser`);
  };
}

export function createNodeEngine(models: readonly ModelEntry[] = MODELS, options: NodeEngineOptions = {}): Engine {
  return new Engine({
    models,
    capabilities: async () => ({ webgpu: false, shaderF16: false, adapter: null, limits: null, reason: 'Node has no WebGPU' }),
    createBackend: nodeBackendFactory(options),
    grammars: options.modelsDir === undefined ? nodeGrammars() : nodeGrammars(join(resolve(options.modelsDir), 'llama-3.1-tokenizer')),
  });
}
