/**
 * Copies onnxruntime-web's WASM runtime into public/ort/ so the page serves it itself (onnxruntime-web's
 * default is a CDN, which the offline demo cannot reach): its module as shipped and its binary gzipped
 * (worker/backends/ort-wasm-binary.ts inflates it). Skips current files.
 */
import { copyFileSync, createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { constants, createGzip } from 'node:zlib';
import { ORT_WASM_BINARY, ORT_WASM_FILE, ORT_WASM_MODULE } from '../../worker/backends/ort-wasm-binary';

export async function copyOrtWasm(root: string, outDir: string): Promise<void> {
  // The copy transformers.js itself imports ("onnxruntime-web/webgpu"): nested if npm did not hoist it.
  const nested = join(root, 'node_modules/@huggingface/transformers/node_modules/onnxruntime-web/dist');
  const ortDir = existsSync(nested) ? nested : join(root, 'node_modules/onnxruntime-web/dist');
  mkdirSync(outDir, { recursive: true });
  const module = join(ortDir, ORT_WASM_MODULE);
  if (!isCurrent(module, join(outDir, ORT_WASM_MODULE), true)) copyFileSync(module, join(outDir, ORT_WASM_MODULE));
  const binary = join(ortDir, ORT_WASM_FILE);
  const gzipped = join(outDir, ORT_WASM_BINARY);
  if (!isCurrent(binary, gzipped, false)) {
    const partial = `${gzipped}.partial`;
    await pipeline(createReadStream(binary), createGzip({ level: constants.Z_BEST_COMPRESSION }), createWriteStream(partial));
    renameSync(partial, gzipped);
  }
  // The uncompressed binary an earlier setup copied is no longer served.
  rmSync(join(outDir, ORT_WASM_FILE), { force: true });
}

function isCurrent(from: string, to: string, sameSize: boolean): boolean {
  if (!existsSync(to)) return false;
  return (!sameSize || statSync(to).size === statSync(from).size) && statSync(to).mtimeMs >= statSync(from).mtimeMs;
}
