/**
 * The tiny random-weight Llama 3.1 stand-in every test tier runs on: Llama 3.1's vocabulary, special ids,
 * RoPE (llama3 scaling) and I/O layout, with 2 layers of width 64. Weights come from a fixed seed, so
 * every machine builds the same model.onnx; a stamp makes a rebuild with unchanged inputs a no-op.
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildLlamaOnnx } from '../onnx/build-llama-onnx';
import { allExist, BUILDER_SOURCES, copyTokenizer, hashSources, llamaConfigJson, readText, writeAtomic } from './model-dir';
import type { LlamaConfig } from '../onnx/llama-config';
import { llamaWeightShapes } from '../onnx/llama-config';
import { SeededRandom } from './seeded-random';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Where `npm run setup` puts the tiny model (git-ignored). */
export const DEFAULT_TINY_MODEL_DIR = join(repoRoot, 'models', 'tiny-llama');
/** Where the tokenizer step of setup puts the Llama 3.1 tokenizer; copied next to the model when present. */
export const DEFAULT_TOKENIZER_DIR = join(repoRoot, 'models', 'llama-3.1-tokenizer');

/** Bump when the weight recipe changes in a way the hashed inputs below would not reveal. */
const GENERATOR_VERSION = 1;
export const TINY_LLAMA_SEED = 20240723;

/** The tiny model's architecture, in HF LlamaConfig terms. */
export const TINY_LLAMA_CONFIG: LlamaConfig = {
  vocab_size: 128256,
  hidden_size: 64,
  intermediate_size: 192,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  head_dim: 16,
  rms_norm_eps: 1e-5,
  rope_theta: 500000,
  rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 },
  tie_word_embeddings: true,
};

export const TINY_BOS_ID = 128000;
export const TINY_EOS_IDS: readonly number[] = [128001, 128008, 128009];

/** config.json as transformers.js (and HF) read it. */
export function tinyConfigJson(): Record<string, unknown> {
  return llamaConfigJson(TINY_LLAMA_CONFIG, { maxPositions: 131072, bos: TINY_BOS_ID, eos: TINY_EOS_IDS });
}

/** generation_config.json: Llama 3.1 Instruct's sampling defaults. */
export function tinyGenerationConfigJson(): Record<string, unknown> {
  return { bos_token_id: TINY_BOS_ID, eos_token_id: [...TINY_EOS_IDS], do_sample: true, temperature: 0.6, top_p: 0.9 };
}

/** Standard deviations (and the final norm's mean) of the tiny model's random weights. */
export interface TinyWeightScales {
  readonly embed: number;
  readonly qk: number;
  readonly v: number;
  readonly o: number;
  readonly gateUp: number;
  readonly down: number;
  readonly layerNormJitter: number;
  readonly finalNormMean: number;
}

/**
 * Projections are ~unit gain (gain/√fan_in), q/k hotter so attention is not uniform, o/down hotter so each
 * block moves the residual stream; the final norm's weights are sign-mixed (mean 0.3, std 1) so the LM head
 * does not echo the last token's embedding; the embedding scale sets the logit spread (std ≈ 3: top-1
 * probability mostly 0.02–0.2, argmax varying with context).
 */
export const TINY_WEIGHT_SCALES: TinyWeightScales = { embed: 0.35, qk: 2, v: 1, o: 1.5, gateUp: 1, down: 1.5, layerNormJitter: 0.1, finalNormMean: 0.3 };

/** The tiny model's weights, keyed by HF names; a pure function of `seed` and `scales`. */
export function tinyLlamaWeights(seed: number = TINY_LLAMA_SEED, scales: TinyWeightScales = TINY_WEIGHT_SCALES): Record<string, Float32Array> {
  const rng = new SeededRandom(seed);
  const out: Record<string, Float32Array> = {};
  for (const [name, shape] of llamaWeightShapes(TINY_LLAMA_CONFIG)) {
    const n = shape.reduce((a, b) => a * b, 1);
    const fanIn = shape[shape.length - 1]!;
    let w: Float32Array;
    if (name === 'model.embed_tokens.weight') w = rng.normalArray(n, scales.embed);
    else if (name === 'model.norm.weight') w = rng.normalArray(n, 1, scales.finalNormMean);
    else if (name.endsWith('layernorm.weight')) w = rng.normalArray(n, scales.layerNormJitter, 1);
    else if (/[qk]_proj/.test(name)) w = rng.normalArray(n, scales.qk / Math.sqrt(fanIn));
    else if (name.includes('v_proj')) w = rng.normalArray(n, scales.v / Math.sqrt(fanIn));
    else if (name.includes('o_proj')) w = rng.normalArray(n, scales.o / Math.sqrt(fanIn));
    else if (name.includes('down_proj')) w = rng.normalArray(n, scales.down / Math.sqrt(fanIn));
    else w = rng.normalArray(n, scales.gateUp / Math.sqrt(fanIn));
    out[name] = w;
  }
  return out;
}

export interface BuildTinyModelOptions {
  /** Source of tokenizer.json / tokenizer_config.json to copy beside the model; skipped when absent. */
  tokenizerDir?: string;
}

/**
 * Writes `outDir/onnx/model.onnx`, `outDir/config.json`, `outDir/generation_config.json` (and the tokenizer
 * files when the tokenizer dir exists). Idempotent: when `outDir/.tiny-model.stamp` holds the hash of the
 * generator inputs and the files exist, nothing is rebuilt. Files are written to a temporary name and renamed,
 * the stamp last, so a concurrent or interrupted build never leaves a half-written model behind a valid stamp.
 */
export async function buildTinyModel(outDir: string = DEFAULT_TINY_MODEL_DIR, options: BuildTinyModelOptions = {}): Promise<void> {
  const stampPath = join(outDir, '.tiny-model.stamp');
  const modelPath = join(outDir, 'onnx', 'model.onnx');
  const configPath = join(outDir, 'config.json');
  const genPath = join(outDir, 'generation_config.json');
  const hash = await generatorHash();
  const upToDate = (await readText(stampPath)) === hash && (await allExist([modelPath, configPath, genPath]));
  if (!upToDate) {
    await mkdir(join(outDir, 'onnx'), { recursive: true });
    await writeAtomic(modelPath, buildLlamaOnnx(TINY_LLAMA_CONFIG, tinyLlamaWeights()));
    await writeAtomic(configPath, `${JSON.stringify(tinyConfigJson(), null, 2)}\n`);
    await writeAtomic(genPath, `${JSON.stringify(tinyGenerationConfigJson(), null, 2)}\n`);
    await writeAtomic(stampPath, hash);
  }
  await copyTokenizer(options.tokenizerDir ?? DEFAULT_TOKENIZER_DIR, outDir);
}

/** Hash of everything the model bytes depend on: recipe, config, seed and the builder's sources. */
async function generatorHash(): Promise<string> {
  const h = createHash('sha256');
  h.update(JSON.stringify({ GENERATOR_VERSION, seed: TINY_LLAMA_SEED, scales: TINY_WEIGHT_SCALES, config: tinyConfigJson(), gen: tinyGenerationConfigJson() }));
  await hashSources(h, [...BUILDER_SOURCES, './seeded-random.ts', './tiny-model.ts']);
  return h.digest('hex');
}



if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const t0 = performance.now();
  await buildTinyModel(process.argv[2] ?? DEFAULT_TINY_MODEL_DIR);
  console.log(`tiny model ready (${Math.round(performance.now() - t0)} ms)`);
}
