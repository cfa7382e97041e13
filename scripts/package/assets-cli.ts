/**
 * `llama-agent-assets copy DIR [--micro]` (the package's bin): writes the heavy assets a page or a Node
 * script needs into DIR — onnxruntime-web's WASM and Pyodide copied from the installed dependencies,
 * the tokenizer and the local search's demo corpus, and with --micro the micro demo model built from
 * its compact artifact (shipped in the package under files/). Idempotent: current files are kept.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeDemoCorpus } from '../setup/demo-corpus';
import { buildMicroModel } from '../setup/micro-model';
import { copyTokenizer } from '../setup/model-dir';
import { copyOrtWasm } from '../setup/ort-wasm';
import { copyPyodideAssets } from '../setup/pyodide-assets';
import { ASSETS_USAGE, AssetsUsageError, parseAssetsArgs } from './assets-args';

const FILES = fileURLToPath(new URL('./files/', import.meta.url));

/** The folder whose node_modules holds the dependencies (the consumer's project, or a nested install). */
function dependencyRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules/pyodide/package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`pyodide is not installed in any node_modules above ${from}`);
  }
}

async function copyAssets(dir: string, micro: boolean): Promise<void> {
  const out = resolve(dir);
  const deps = dependencyRoot(dirname(fileURLToPath(import.meta.url)));
  const tokenizerDir = join(out, 'models/llama-3.1-tokenizer');
  const steps: Array<[string, () => Promise<void>]> = [
    ['ort/', () => copyOrtWasm(deps, join(out, 'ort'))],
    ['pyodide/', () => copyPyodideAssets(deps, join(out, 'pyodide'))],
    ['models/llama-3.1-tokenizer/', async () => {
      await mkdir(tokenizerDir, { recursive: true });
      await copyTokenizer(join(FILES, 'llama-3.1-tokenizer'), tokenizerDir);
    }],
    ['local-search/', () => writeDemoCorpus(out)],
  ];
  if (micro) steps.push(['models/micro-llama/', () => buildMicroModel(join(out, 'models/micro-llama'), { artifactDir: join(FILES, 'micro-llama'), tokenizerDir })]);
  for (const [name, step] of steps) {
    await step();
    console.log(`llama-agent-assets: ${join(dir, name)}`);
  }
}

try {
  const { dir, micro } = parseAssetsArgs(process.argv.slice(2));
  await copyAssets(dir, micro);
} catch (e) {
  console.error(e instanceof AssetsUsageError ? `llama-agent-assets: ${e.message}\n${ASSETS_USAGE}` : `llama-agent-assets: ${(e as Error).message}`);
  process.exitCode = e instanceof AssetsUsageError ? 2 : 1;
}
