/**
 * onnxruntime-web's WASM runtime, shipped gzip-compressed (`ort-wasm-simd-threaded.asyncify.wasm.gz`,
 * 6.6 MB against 26.9 MB): fetched once per URL, inflated in the worker and handed to onnxruntime-web as
 * `env.wasm.wasmBinary`, so a host's static server needs no compression settings and a widget folder stays
 * small. A server that already decoded the file (`Content-Encoding: gzip` on `.gz`) is accepted too.
 */
import { oncePerUrl } from '../../src/loading/once-per-url';

export const ORT_WASM_MODULE = 'ort-wasm-simd-threaded.asyncify.mjs';
/** The binary as onnxruntime-web ships it, and as served: gzipped. */
export const ORT_WASM_FILE = 'ort-wasm-simd-threaded.asyncify.wasm';
export const ORT_WASM_BINARY = `${ORT_WASM_FILE}.gz`;

const GZIP_MAGIC = [0x1f, 0x8b];
const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];

/** The runtime's bytes from `url` (a `.wasm.gz`); rejects with a message naming the URL. A failed fetch is not remembered. */
export const fetchOrtWasmBinary: (url: string) => Promise<ArrayBuffer> = oncePerUrl(readWasm);

async function readWasm(url: string): Promise<ArrayBuffer> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`onnxruntime-web's WASM runtime was not found at ${url} (HTTP ${response.status})`);
  const body = new Uint8Array(await response.arrayBuffer());
  const bytes = startsWith(body, GZIP_MAGIC) ? await gunzip(body) : body;
  if (!startsWith(bytes, WASM_MAGIC)) {
    throw new Error(`${url} is neither gzip nor a WebAssembly module (${body.byteLength} bytes, starting ${hex(body.subarray(0, 4))})`);
  }
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function startsWith(bytes: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((b, i) => bytes[i] === b);
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ');
}
