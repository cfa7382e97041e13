/**
 * The micro and tiny models as GGUF, from the same weights as their ONNX (the micro model's committed
 * artifact, the tiny model's seeded recipe) and the same tokenizer: `<model>/gguf/<name>-f32.gguf`
 * (for equality checks against ONNX) and `<name>-f16.gguf` (the usual distribution type). Git-ignored.
 * Idempotent: `gguf/.gguf.stamp` holds the hash of every input (weights, tokenizer, chat template, the
 * writer's sources); files are written under temporary names and renamed, the stamp last.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeGguf, type GgmlType } from '../gguf/gguf-writer';
import { llamaGguf } from '../gguf/llama-gguf';
import { ggufTokenizerFromJson } from '../gguf/tokenizer-gguf';
import type { LlamaConfig, LlamaWeights } from '../onnx/llama-config';
import { DEFAULT_MICRO_MODEL_DIR, MICRO_CONTEXT_WINDOW, readMicroArtifact } from './micro-model';
import { allExist, hashSources, readText, writeAtomic } from './model-dir';
import { DEFAULT_TINY_MODEL_DIR, DEFAULT_TOKENIZER_DIR, TINY_LLAMA_CONFIG, TINY_LLAMA_SEED, TINY_WEIGHT_SCALES, tinyLlamaWeights } from './tiny-model';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHAT_TEMPLATE = join(repoRoot, 'models', 'llama-3.1-8b-instruct.chat-template.jinja');
/** Bump when the output changes in a way the hashed inputs would not reveal. */
const GENERATOR_VERSION = 1;
const GGUF_SOURCES = ['../gguf/gguf-writer.ts', '../gguf/llama-gguf.ts', '../gguf/tokenizer-gguf.ts', '../gguf/float16.ts', '../onnx/llama-config.ts', '../onnx/rope.ts', './gguf-models.ts'];
export const GGUF_TYPES: readonly GgmlType[] = ['F32', 'F16'];

export type GgufModelName = 'micro-llama' | 'tiny-llama';

const MODEL_DIRS: Record<GgufModelName, string> = { 'micro-llama': DEFAULT_MICRO_MODEL_DIR, 'tiny-llama': DEFAULT_TINY_MODEL_DIR };

/** Where setup writes a model's GGUF of the given type. */
export function ggufPath(model: GgufModelName, type: GgmlType, modelDir: string = MODEL_DIRS[model]): string {
  return join(modelDir, 'gguf', `${model}-${type.toLowerCase()}.gguf`);
}

interface GgufSource {
  name: GgufModelName;
  outDir: string;
  contextLength: number;
  /** Feeds what the weights depend on into the hash (cheap: no weights are computed). */
  hashWeights: (h: ReturnType<typeof createHash>) => Promise<void>;
  load: () => Promise<{ config: LlamaConfig; weights: LlamaWeights }>;
}

export interface BuildGgufOptions {
  microDir?: string;
  tinyDir?: string;
  tokenizerDir?: string;
}

/** Writes both models' GGUF files unless their stamps are current. */
export async function buildGgufModels(options: BuildGgufOptions = {}): Promise<void> {
  const microDir = options.microDir ?? DEFAULT_MICRO_MODEL_DIR;
  const sources: GgufSource[] = [
    {
      name: 'micro-llama',
      outDir: microDir,
      contextLength: MICRO_CONTEXT_WINDOW,
      hashWeights: async (h) => {
        const manifest = await readFile(join(microDir, 'manifest.json'));
        h.update(manifest);
        const file = (JSON.parse(manifest.toString('utf8')) as { weights: { file: string } }).weights.file;
        h.update(await readFile(join(microDir, file)));
      },
      load: async () => {
        const a = await readMicroArtifact(microDir);
        return { config: a.manifest.config, weights: a.weights };
      },
    },
    {
      name: 'tiny-llama',
      outDir: options.tinyDir ?? DEFAULT_TINY_MODEL_DIR,
      contextLength: 131072,
      hashWeights: async (h) => {
        h.update(JSON.stringify({ seed: TINY_LLAMA_SEED, scales: TINY_WEIGHT_SCALES, config: TINY_LLAMA_CONFIG }));
        await hashSources(h, ['./tiny-model.ts', './seeded-random.ts']);
      },
      load: async () => ({ config: TINY_LLAMA_CONFIG, weights: tinyLlamaWeights() }),
    },
  ];
  const tokenizerText = await readFile(join(options.tokenizerDir ?? DEFAULT_TOKENIZER_DIR, 'tokenizer.json'), 'utf8');
  const chatTemplate = await readFile(CHAT_TEMPLATE, 'utf8');
  for (const source of sources) await buildOne(source, tokenizerText, chatTemplate);
}

async function buildOne(source: GgufSource, tokenizerText: string, chatTemplate: string): Promise<void> {
  const dir = join(source.outDir, 'gguf');
  const stampPath = join(dir, '.gguf.stamp');
  const paths = GGUF_TYPES.map((t) => ggufPath(source.name, t, source.outDir));
  const h = createHash('sha256');
  h.update(JSON.stringify({ GENERATOR_VERSION, name: source.name, contextLength: source.contextLength, types: GGUF_TYPES }));
  await source.hashWeights(h);
  h.update(tokenizerText);
  h.update(chatTemplate);
  await hashSources(h, GGUF_SOURCES);
  const hash = h.digest('hex');
  if ((await readText(stampPath)) === hash && (await allExist(paths))) return;
  const { config, weights } = await source.load();
  const tokenizer = ggufTokenizerFromJson(tokenizerText, chatTemplate);
  await mkdir(dir, { recursive: true });
  for (const [i, type] of GGUF_TYPES.entries()) {
    const { metadata, tensors } = llamaGguf(config, weights, { name: source.name, contextLength: source.contextLength, type, tokenizer });
    await writeAtomic(paths[i]!, writeGguf(metadata, tensors));
  }
  await writeAtomic(stampPath, hash);
}
