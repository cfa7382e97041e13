/**
 * The micro Llama: a 4-layer Llama 3.1 trained on this project's synthetic tool transcripts
 * (scripts/micro-llama/, models/micro-llama/train/). The committed artifact is compact — fp16 tensors
 * holding only the embedding rows of token ids that occur in the corpus (models/micro-llama/weights.bin)
 * and its manifest.json — and is expanded here into the layout of the tiny model: the full 128,256-row
 * embedding (format /1: zero rows elsewhere, whose logit is exactly 0; formats /2 and /3: frozen seeded rows for
 * every other ordinary id, frozen-rows.ts, and zero rows for unused special tokens), fp32 ONNX, config.json, generation_config.json
 * and the tokenizer files. A stamp makes a rebuild with an unchanged artifact a no-op.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildLlamaOnnx } from '../onnx/build-llama-onnx';
import { allExist, BUILDER_SOURCES, copyTokenizer, hashSources, llamaConfigJson, readText, writeAtomic } from './model-dir';
import { fillFrozenRows } from './frozen-rows';
import { checkLlamaWeights, llamaDims, type LlamaConfig } from '../onnx/llama-config';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Where the committed artifact lives and where setup expands it (the generated files are git-ignored). */
export const DEFAULT_MICRO_MODEL_DIR = join(repoRoot, 'models', 'micro-llama');
const DEFAULT_TOKENIZER_DIR = join(repoRoot, 'models', 'llama-3.1-tokenizer');

/** Bump when the expansion changes in a way the hashed inputs would not reveal. */
const GENERATOR_VERSION = 1;
export const MICRO_MANIFEST_FORMAT = 'micro-llama-fp16/1';
/**
 * Format /2: as /1 plus `model.embed_tokens.frozen_scale` (one float16), the scale of the frozen rows, and
 * optionally `model.embed_tokens.frozen_dims` (one int32, default hidden_size), how many leading dimensions they fill.
 */
export const MICRO_MANIFEST_FORMAT_FROZEN = 'micro-llama-fp16/2';
/**
 * Format /3 (run 27 on): as /2 with `frozen_dims` required and `model.embed_tokens.frozen_offset` (one int32), the
 * first dimension the frozen rows fill: a model widened from a learned one keeps them out of its old dimensions.
 */
export const MICRO_MANIFEST_FORMAT_FROZEN_OFFSET = 'micro-llama-fp16/3';
const FROZEN_SCALE = 'model.embed_tokens.frozen_scale';
const FROZEN_DIMS = 'model.embed_tokens.frozen_dims';
const FROZEN_OFFSET = 'model.embed_tokens.frozen_offset';
const FROZEN_TENSORS: readonly string[] = [FROZEN_SCALE, FROZEN_DIMS, FROZEN_OFFSET];

/** Whether an artifact of this format has frozen rows (every ordinary id without a learned row). */
export function hasFrozenRows(format: string): boolean {
  return format === MICRO_MANIFEST_FORMAT_FROZEN || format === MICRO_MANIFEST_FORMAT_FROZEN_OFFSET;
}
export const MICRO_BOS_ID = 128000;
export const MICRO_EOS_IDS: readonly number[] = [128001, 128008, 128009];
/** The longest sequence the model was trained on (contextWindow in models.json). */
export const MICRO_CONTEXT_WINDOW = 1024;

export interface MicroTensorEntry {
  name: string;
  dtype: 'float16' | 'int32';
  shape: number[];
  /** Byte offset in weights.bin. */
  offset: number;
  bytes: number;
}

/** manifest.json: written by models/micro-llama/train/train.py; `evaluation` added by scripts/micro-llama/evaluate.ts. */
export interface MicroManifest {
  format: string;
  config: LlamaConfig;
  weights: { file: string; bytes: number; sha256: string };
  tensors: MicroTensorEntry[];
  corpus?: Record<string, unknown>;
  training?: Record<string, unknown>;
  evaluation?: Record<string, unknown>;
}

export interface MicroArtifact {
  manifest: MicroManifest;
  /** The token ids that have embedding rows, ascending. */
  usedIds: Int32Array;
  /** Full fp32 weights by HF name (embedding expanded to every id of the vocabulary). */
  weights: Record<string, Float32Array>;
}

/** IEEE 754 half → number (subnormals, infinities and NaN included). */
export function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? Number.NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

function readTensor(bin: Uint8Array, t: MicroTensorEntry): Float32Array | Int32Array {
  const count = t.shape.reduce((a, b) => a * b, 1);
  const width = t.dtype === 'int32' ? 4 : 2;
  if (t.bytes !== count * width || t.offset + t.bytes > bin.length) throw new Error(`micro model: tensor ${t.name} does not fit its table entry`);
  const view = new DataView(bin.buffer, bin.byteOffset + t.offset, t.bytes);
  if (t.dtype === 'int32') {
    const out = new Int32Array(count);
    for (let i = 0; i < count; i++) out[i] = view.getInt32(i * 4, true);
    return out;
  }
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = halfToFloat(view.getUint16(i * 2, true));
  return out;
}

/** Expands a manifest and its weights.bin into full fp32 weights; throws on any inconsistency. */
export function expandMicroArtifact(manifest: MicroManifest, bin: Uint8Array): MicroArtifact {
  const frozen = hasFrozenRows(manifest.format);
  const withOffset = manifest.format === MICRO_MANIFEST_FORMAT_FROZEN_OFFSET;
  if (manifest.format !== MICRO_MANIFEST_FORMAT && !frozen) throw new Error(`micro model: unknown manifest format ${JSON.stringify(manifest.format)}`);
  if (bin.length !== manifest.weights.bytes) throw new Error(`micro model: weights.bin has ${bin.length} bytes, the manifest says ${manifest.weights.bytes}`);
  const sha = createHash('sha256').update(bin).digest('hex');
  if (sha !== manifest.weights.sha256) throw new Error('micro model: weights.bin does not match the sha256 in manifest.json');
  const config = manifest.config;
  const d = llamaDims(config);
  const byName = new Map(manifest.tensors.map((t) => [t.name, t]));
  const get = (name: string) => {
    const t = byName.get(name);
    if (!t) throw new Error(`micro model: manifest has no tensor ${name}`);
    return readTensor(bin, t);
  };
  const usedIds = get('used_token_ids');
  const rows = get('model.embed_tokens.rows');
  if (!(usedIds instanceof Int32Array) || !(rows instanceof Float32Array) || rows.length !== usedIds.length * d.hidden) {
    throw new Error('micro model: used_token_ids and model.embed_tokens.rows disagree');
  }
  const embed = new Float32Array(d.vocab * d.hidden);
  usedIds.forEach((id, r) => {
    if (id < 0 || id >= d.vocab) throw new Error(`micro model: used token id ${id} is outside the vocabulary`);
    embed.set(rows.subarray(r * d.hidden, (r + 1) * d.hidden), id * d.hidden);
  });
  if (frozen) {
    const scale = get(FROZEN_SCALE);
    if (!(scale instanceof Float32Array) || scale.length !== 1 || !Number.isFinite(scale[0]!)) throw new Error(`micro model: ${FROZEN_SCALE} must be one finite float16`);
    const dims = byName.has(FROZEN_DIMS) || withOffset ? get(FROZEN_DIMS) : Int32Array.of(d.hidden);
    if (!(dims instanceof Int32Array) || dims.length !== 1 || dims[0]! < 1 || dims[0]! > d.hidden) throw new Error(`micro model: ${FROZEN_DIMS} must be one int32 in 1..${d.hidden}`);
    const offset = withOffset ? get(FROZEN_OFFSET) : Int32Array.of(0);
    if (!(offset instanceof Int32Array) || offset.length !== 1 || offset[0]! < 0 || offset[0]! + dims[0]! > d.hidden) {
      throw new Error(`micro model: ${FROZEN_OFFSET} must be one int32 with ${FROZEN_OFFSET} + ${FROZEN_DIMS} <= ${d.hidden}`);
    }
    if (!withOffset && byName.has(FROZEN_OFFSET)) throw new Error(`micro model: ${FROZEN_OFFSET} belongs to format ${MICRO_MANIFEST_FORMAT_FROZEN_OFFSET}, not ${manifest.format}`);
    fillFrozenRows(embed, d.hidden, new Set(usedIds), scale[0]!, dims[0]!, offset[0]!);
  }
  const weights: Record<string, Float32Array> = { 'model.embed_tokens.weight': embed };
  for (const t of manifest.tensors) {
    if (t.name === 'used_token_ids' || t.name === 'model.embed_tokens.rows' || FROZEN_TENSORS.includes(t.name)) continue;
    const w = readTensor(bin, t);
    if (!(w instanceof Float32Array)) throw new Error(`micro model: tensor ${t.name} must be float16`);
    weights[t.name] = w;
  }
  checkLlamaWeights(config, weights);
  return { manifest, usedIds, weights };
}

/** Reads and expands the committed artifact in `artifactDir` (manifest.json + its weights file). */
export async function readMicroArtifact(artifactDir: string = DEFAULT_MICRO_MODEL_DIR): Promise<MicroArtifact> {
  const manifest = await readManifest(artifactDir);
  const bin = await readFile(join(artifactDir, manifest.weights.file));
  return expandMicroArtifact(manifest, new Uint8Array(bin.buffer, bin.byteOffset, bin.byteLength));
}

async function readManifest(artifactDir: string): Promise<MicroManifest> {
  const path = join(artifactDir, 'manifest.json');
  const text = await readFile(path, 'utf8').catch((cause: unknown) => {
    throw new Error(`micro model: cannot read ${path} (the committed artifact; see models/micro-llama/train/README.md)`, { cause });
  });
  return JSON.parse(text) as MicroManifest;
}

/** config.json as transformers.js (and HF) read it; fp32 by default on every device. */
export function microConfigJson(config: LlamaConfig): Record<string, unknown> {
  return llamaConfigJson(config, { maxPositions: MICRO_CONTEXT_WINDOW, bos: MICRO_BOS_ID, eos: MICRO_EOS_IDS });
}

/** generation_config.json: greedy, since the micro model is only reliable at its argmax. */
export function microGenerationConfigJson(): Record<string, unknown> {
  return { bos_token_id: MICRO_BOS_ID, eos_token_id: [...MICRO_EOS_IDS], do_sample: false };
}

export interface BuildMicroModelOptions {
  /** Where manifest.json and weights.bin are read (default: `outDir`, which is where they are committed). */
  artifactDir?: string;
  /** Source of tokenizer.json / tokenizer_config.json to copy beside the model; skipped when absent. */
  tokenizerDir?: string;
}

/**
 * Writes `outDir/onnx/model.onnx`, `outDir/config.json` and `outDir/generation_config.json` from the
 * artifact (and copies the tokenizer files when the tokenizer dir exists). Idempotent: when
 * `outDir/.micro-model.stamp` holds the hash of the artifact and of the builder, nothing is rebuilt.
 * Files are written to a temporary name and renamed, the stamp last.
 */
export async function buildMicroModel(outDir: string = DEFAULT_MICRO_MODEL_DIR, options: BuildMicroModelOptions = {}): Promise<void> {
  const artifactDir = options.artifactDir ?? outDir;
  const stampPath = join(outDir, '.micro-model.stamp');
  const modelPath = join(outDir, 'onnx', 'model.onnx');
  const configPath = join(outDir, 'config.json');
  const genPath = join(outDir, 'generation_config.json');
  const manifest = await readManifest(artifactDir);
  const hash = await generatorHash(manifest, artifactDir);
  const upToDate = (await readText(stampPath)) === hash && (await allExist([modelPath, configPath, genPath]));
  if (!upToDate) {
    const { weights } = await readMicroArtifact(artifactDir);
    await mkdir(join(outDir, 'onnx'), { recursive: true });
    await writeAtomic(modelPath, buildLlamaOnnx(manifest.config, weights));
    await writeAtomic(configPath, `${JSON.stringify(microConfigJson(manifest.config), null, 2)}\n`);
    await writeAtomic(genPath, `${JSON.stringify(microGenerationConfigJson(), null, 2)}\n`);
    await writeAtomic(stampPath, hash);
  }
  await copyTokenizer(options.tokenizerDir ?? DEFAULT_TOKENIZER_DIR, outDir);
}

/** Hash of what the model bytes depend on: the weights, the model-defining manifest fields and the builder's sources. */
async function generatorHash(manifest: MicroManifest, artifactDir: string): Promise<string> {
  const h = createHash('sha256');
  h.update(JSON.stringify({ GENERATOR_VERSION, format: manifest.format, config: manifest.config, tensors: manifest.tensors, weights: manifest.weights }));
  h.update(JSON.stringify({ config: microConfigJson(manifest.config), gen: microGenerationConfigJson() }));
  const bin = await readFile(join(artifactDir, manifest.weights.file)).catch(() => null);
  h.update(bin ?? 'missing');
  await hashSources(h, [...BUILDER_SOURCES, './micro-model.ts', './frozen-rows.ts']);
  return h.digest('hex');
}



if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const t0 = performance.now();
  const out = process.argv[2] ?? DEFAULT_MICRO_MODEL_DIR;
  await buildMicroModel(out, process.argv[3] ? { artifactDir: process.argv[3] } : {});
  console.log(`micro model ready in ${out} (${Math.round(performance.now() - t0)} ms)`);
}
