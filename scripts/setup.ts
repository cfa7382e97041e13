/**
 * Generates the offline assets every tier runs on (run by `npm install`'s prepare script — which an installed copy of the package does not run — by
 * `npm run setup`, and before every test run): the Llama 3.1 tokenizer and the tiny test model
 * and the micro model's ONNX and both as GGUF
 * under models/, the local search's demo corpus under public/local-search/, onnxruntime-web's wasm under public/ort/ and Pyodide under public/pyodide/. Idempotent: each step skips work whose stamp matches. Nothing here is committed.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeDemoCorpus } from './setup/demo-corpus';
import { buildGgufModels } from './setup/gguf-models';
import { buildMicroModel } from './setup/micro-model';
import { copyOrtWasm } from './setup/ort-wasm';
import { copyPyodideAssets } from './setup/pyodide-assets';
import { buildTinyModel } from './setup/tiny-model';
import { buildTokenizer } from './setup/tokenizer';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function runSetup({ quiet = false } = {}): Promise<void> {
  const steps: Array<[string, () => Promise<void>]> = [
    ['tokenizer  models/llama-3.1-tokenizer', () => buildTokenizer(join(root, 'models/llama-3.1-tokenizer'))],
    ['tiny model models/tiny-llama', () => buildTinyModel(join(root, 'models/tiny-llama'))],
    ['micro model models/micro-llama', () => buildMicroModel(join(root, 'models/micro-llama'))],
    ['gguf models/{micro,tiny}-llama/gguf', () => buildGgufModels()],
    ['demo corpus public/local-search/corpus.json', () => writeDemoCorpus(join(root, 'public'))],
    ['onnxruntime-web wasm public/ort', () => copyOrtWasm(root, join(root, 'public/ort'))],
    ['pyodide runtime public/pyodide', () => copyPyodideAssets(root, join(root, 'public/pyodide'))],
  ];
  for (const [name, step] of steps) {
    const t0 = performance.now();
    await step();
    if (!quiet) console.log(`setup: ${name} (${Math.round(performance.now() - t0)} ms)`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await runSetup();
