/**
 * Writing a generated model folder (onnx/model.onnx, config files, tokenizer copies, a stamp):
 * every file is written under a temporary name and renamed, so a concurrent or interrupted build
 * never leaves a half-written file behind a valid stamp.
 */
import type { Hash } from 'node:crypto';
import type { LlamaConfig } from '../onnx/llama-config';
import { copyFile, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export async function writeAtomic(path: string, data: Uint8Array | string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  await writeFile(tmp, data);
  await rename(tmp, path);
}

export async function readText(path: string): Promise<string | null> {
  return readFile(path, 'utf8').catch(() => null);
}

export async function allExist(paths: readonly string[]): Promise<boolean> {
  const stats = await Promise.all(paths.map((p) => stat(p).catch(() => null)));
  return stats.every((s) => s !== null);
}

/** Copies the tokenizer files next to the model (skipped when absent or already current). */
export async function copyTokenizer(fromDir: string, outDir: string): Promise<void> {
  for (const name of ['tokenizer.json', 'tokenizer_config.json']) {
    const src = join(fromDir, name);
    const dst = join(outDir, name);
    const s = await stat(src).catch(() => null);
    if (!s) continue;
    const d = await stat(dst).catch(() => null);
    if (d && d.size === s.size && d.mtimeMs >= s.mtimeMs) continue;
    const tmp = `${dst}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
    await copyFile(src, tmp);
    await rename(tmp, dst);
  }
}

/** The ONNX builder's sources: a model's stamp includes them, so editing the builder rebuilds it. */
export const BUILDER_SOURCES = ['../onnx/build-llama-onnx.ts', '../onnx/onnx-graph.ts', '../onnx/llama-config.ts', '../onnx/rope.ts'];

/** Feeds each source file (relative to this folder) into the hash. */
export async function hashSources(h: Hash, relPaths: readonly string[]): Promise<void> {
  for (const rel of relPaths) {
    h.update(rel);
    h.update((await readText(fileURLToPath(new URL(rel, import.meta.url)))) ?? 'unavailable');
  }
}

/**
 * config.json as transformers.js (and HF) read it for our ONNX Llama graphs; `transformers.js_config.dtype`
 * makes fp32 the default on every device (the WASM backend would otherwise look for a q8 file).
 */
export function llamaConfigJson(config: LlamaConfig, o: { maxPositions: number; bos: number; eos: readonly number[] }): Record<string, unknown> {
  return {
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    ...config,
    hidden_act: 'silu',
    max_position_embeddings: o.maxPositions,
    attention_bias: false,
    attention_dropout: 0,
    mlp_bias: false,
    pretraining_tp: 1,
    initializer_range: 0.02,
    use_cache: true,
    bos_token_id: o.bos,
    eos_token_id: [...o.eos],
    torch_dtype: 'float32',
    'transformers.js_config': { dtype: 'fp32', use_external_data_format: false },
  };
}
