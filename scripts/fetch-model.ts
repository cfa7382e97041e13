/**
 * `npm run fetch-model -- <model-id>`: downloads a model's files into models/ on a machine with
 * internet, so the page (and the offline demo) loads it from its own origin.
 *
 * Layouts (what the engine looks for first, before the public URLs):
 *   web-llm  models/<id>/resolve/main/{mlc-chat-config.json, tensor-cache.json, params shards,
 *            tokenizer files} and models/<id>/<model library>.wasm   (worker/backends/webllm-backend.ts)
 *   ONNX     models/<path>/{config.json, generation_config.json, tokenizer*.json, onnx/model_<dtype>.onnx[_data]}
 *
 * Files already complete (same size) are skipped; each download lands in a .part file renamed when
 * done; a .gitignore of "*" keeps the folder out of git. Exit code 2 with one line for bad input.
 */
import { copyFileSync, createWriteStream, existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { fileURLToPath } from 'node:url';
import { findModel, type OnnxEntry, type WebLlmEntry } from '../src/engine/model-list';
import { MODELS } from '../src/engine/models';

const MODELS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../models');

interface Download {
  url: string;
  file: string;
  optional?: boolean;
}

/** fetch, with the URL in the error when the network fails. */
async function get(url: string): Promise<Response> {
  try {
    return await fetch(url);
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    throw new Error(`could not reach ${url} (${e instanceof Error ? e.message : String(e)}${cause ? `, ${cause}` : ''})`);
  }
}

async function json(url: string): Promise<Record<string, unknown> | null> {
  const r = await get(url);
  return r.ok ? ((await r.json()) as Record<string, unknown>) : null;
}

/** The files of a web-llm model: configs, the weight manifest and its shards, the tokenizer, the library. */
async function webLlmPlan(m: WebLlmEntry): Promise<Download[]> {
  const base = m.modelUrl;
  const dir = join(MODELS_DIR, m.id, 'resolve/main');
  const config = await json(`${base}mlc-chat-config.json`);
  if (!config) throw new Error(`no mlc-chat-config.json at ${base}`);
  let manifestName = 'tensor-cache.json';
  let manifest = await json(`${base}${manifestName}`);
  if (!manifest) manifest = await json(`${base}${(manifestName = 'ndarray-cache.json')}`);
  if (!manifest) throw new Error(`no tensor-cache.json or ndarray-cache.json at ${base}`);
  const shards = ((manifest.records ?? []) as Array<{ dataPath: string }>).map((r) => r.dataPath);
  const tokenizer = (config.tokenizer_files ?? ['tokenizer.json']) as string[];
  const lib = m.modelLib;
  return [
    ...['mlc-chat-config.json', manifestName, ...tokenizer, ...shards].map((f) => ({ url: `${base}${f}`, file: join(dir, f) })),
    { url: lib, file: join(MODELS_DIR, m.id, lib.slice(lib.lastIndexOf('/') + 1)) },
  ];
}

/** The files of an ONNX hub model, as transformers.js asks for them. */
function onnxPlan(m: OnnxEntry): Download[] {
  const base = `https://huggingface.co/${m.path}/resolve/main/`;
  const dir = join(MODELS_DIR, m.path);
  const weights = `onnx/model${m.dtype === 'fp32' ? '' : `_${m.dtype}`}.onnx`;
  return [
    ...['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', weights].map((f) => ({ url: `${base}${f}`, file: join(dir, f) })),
    { url: `${base}${weights}_data`, file: join(dir, `${weights}_data`), optional: true },
  ];
}

async function download({ url, file, optional }: Download): Promise<void> {
  const r = await get(url);
  if (!r.ok || !r.body) {
    if (optional && r.status === 404) return;
    throw new Error(`HTTP ${r.status} for ${url}`);
  }
  const size = Number(r.headers.get('content-length'));
  if (existsSync(file) && size > 0 && statSync(file).size === size) {
    await r.body.cancel();
    console.log(`  have ${file}`);
    return;
  }
  mkdirSync(dirname(file), { recursive: true });
  await pipeline(Readable.fromWeb(r.body as WebReadableStream), createWriteStream(`${file}.part`));
  renameSync(`${file}.part`, file);
  console.log(`  got  ${file} (${(statSync(file).size / 1e6).toFixed(1)} MB)`);
}

async function main(id: string | undefined): Promise<void> {
  const m = id ? findModel(MODELS, id) : undefined;
  if (!m) {
    console.error(`usage: npm run fetch-model -- <model-id>; ids: ${MODELS.map((x) => x.id).join(', ')}`);
    process.exit(2);
  }
  if (m.backend === 'onnx' && !m.remote) {
    console.log(`${m.id} is generated locally by \`npm run setup\`: nothing to download.`);
    return;
  }
  if (m.backend !== 'webllm' && m.backend !== 'onnx') {
    console.log(`${m.id} is not downloaded: a ${m.backend} model is read where it runs.`);
    return;
  }
  const plan = m.backend === 'webllm' ? await webLlmPlan(m) : onnxPlan(m);
  const root = join(MODELS_DIR, m.backend === 'webllm' ? m.id : m.path);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, '.gitignore'), '*\n');
  console.log(`${m.label}: ${plan.length} files into ${root}`);
  for (const d of plan) await download(d);
  // web-llm of this version reads tensor-cache.json; older repos name the same manifest ndarray-cache.json.
  const mainDir = join(root, 'resolve/main');
  if (m.backend === 'webllm' && !existsSync(join(mainDir, 'tensor-cache.json')) && existsSync(join(mainDir, 'ndarray-cache.json'))) {
    copyFileSync(join(mainDir, 'ndarray-cache.json'), join(mainDir, 'tensor-cache.json'));
  }
  console.log('done: the page now loads this model from models/ (no network needed).');
}

main(process.argv[2]).catch((e: unknown) => {
  console.error(`fetch-model: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
