/**
 * Which model a CLI command runs, from `--model` and `--engine`:
 *   --model ID          an id of models/models.json ("micro" names the offline demo model)
 *   --model FILE.gguf   a GGUF on disk, run by node-llama-cpp with our sampler and prefix cache
 *   --engine URL        an engine server (vLLM, llama-server); --model is then the served model's
 *                       name (optional: llama-server serves one)
 * The server's API key comes from the environment variable LLAMA_ENGINE_API_KEY, never from a flag,
 * so it does not land in shell history or in the process list.
 */
import { resolve } from 'node:path';
import type { ModelRef } from '../engine/contract';
import { EngineError } from '../engine/errors';
import { parseModelSource } from '../engine/model-source';
import type { NodeEngineOptions } from '../../worker/create-node-engine';
import { CliError } from './cli-error';
import { resolveModelId } from './model-id';

export const ENGINE_API_KEY_VAR = 'LLAMA_ENGINE_API_KEY';

/** The parseArgs options both commands take. */
export const MODEL_FLAGS = { model: { type: 'string' }, engine: { type: 'string' } } as const;

export function cliModelRef(values: { model?: string | undefined; engine?: string | undefined }, defaultId: string): ModelRef {
  const { model, engine } = values;
  if (engine !== undefined) return checked({ kind: 'server', url: engine, ...(model ? { model } : {}) });
  if (model !== undefined && /\.gguf$/i.test(model)) return checked({ kind: 'gguf', path: resolve(model) });
  const id = model ?? defaultId;
  if (!id) throw new CliError('--model needs a model id or a .gguf file');
  return resolveModelId(id);
}

/** The Node engine's options from the environment: the server's API key. */
export function cliEngineOptions(env: NodeJS.ProcessEnv): NodeEngineOptions {
  const key = env[ENGINE_API_KEY_VAR]?.trim();
  return key ? { engineApiKey: key } : {};
}

/** A failed load as a one-line CLI error (exit 2) with the engine's code. */
export function loadError(e: unknown): unknown {
  return e instanceof EngineError ? new CliError(`${e.code}: ${e.message}`) : e;
}

function checked(source: unknown): ModelRef {
  try {
    return parseModelSource(source);
  } catch (e) {
    throw loadError(e);
  }
}
