/**
 * Copies onnxruntime-web's wasm runtime into public/ort/ so the page serves it itself
 * (onnxruntime-web's default is a CDN, which the offline demo cannot reach). Skips current files.
 */
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const FILES = ['ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm'];

export async function copyOrtWasm(root: string, outDir: string): Promise<void> {
  // The copy transformers.js itself imports ("onnxruntime-web/webgpu"): nested if npm did not hoist it.
  const nested = join(root, 'node_modules/@huggingface/transformers/node_modules/onnxruntime-web/dist');
  const ortDir = existsSync(nested) ? nested : join(root, 'node_modules/onnxruntime-web/dist');
  mkdirSync(outDir, { recursive: true });
  for (const file of FILES) {
    const from = join(ortDir, file);
    const to = join(outDir, file);
    if (existsSync(to) && statSync(to).size === statSync(from).size && statSync(to).mtimeMs >= statSync(from).mtimeMs) continue;
    copyFileSync(from, to);
  }
}
