/**
 * The package's Node entry (`llama-agent-web/node`): the engine in process (ONNX Runtime for the local
 * ONNX models, node-llama-cpp for GGUF files, or an engine server) and the tokenizer read from disk.
 * `npx llama-agent-assets copy DIR --micro` writes DIR/models/ with the tokenizer and the micro model.
 */
import { MODELS } from '../engine/models';
import type { ModelEntry } from '../engine/model-list';
import { createNodeEngine as createEngine, type NodeEngineOptions } from '../../worker/create-node-engine';
import type { Engine } from '../../worker/engine';

export interface CreateNodeEngineOptions extends NodeEngineOptions {
  /** The model list (default the package's models.json). */
  models?: readonly ModelEntry[];
}

export function createNodeEngine(options: CreateNodeEngineOptions = {}): Engine {
  const { models = MODELS, ...engineOptions } = options;
  return createEngine(models, engineOptions);
}

export { loadTokenizer } from '../format/tokenizer/load-node';
export type { Engine } from '../../worker/engine';
export type { NodeEngineOptions } from '../../worker/create-node-engine';
