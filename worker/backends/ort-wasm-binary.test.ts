import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fetchOrtWasmBinary } from './ort-wasm-binary';

const WASM = Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...Array.from({ length: 4000 }, (_, i) => i % 7)]);

/** Serves `body` (or a 404) as the page's fetch from now on; returns the URLs it was asked for. */
function serving(body: Uint8Array, status = 200): { calls: string[] } {
  const calls: string[] = [];
  vi.stubGlobal('fetch', async (url: string) => {
    calls.push(url);
    return new Response(status === 200 ? new Uint8Array(body) : 'missing', { status });
  });
  return { calls };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('fetchOrtWasmBinary', () => {
  it('inflates the gzipped runtime to the exact WASM bytes, fetching a URL once', async () => {
    const { calls } = serving(gzipSync(WASM, { level: 9 }));
    const url = 'https://host.example/ort/a.wasm.gz';
    const first = await fetchOrtWasmBinary(url);
    expect(new Uint8Array(first)).toEqual(WASM);
    expect(await fetchOrtWasmBinary(url)).toBe(first);
    expect(calls).toEqual([url]);
  });

  it('accepts a body the server already decoded (Content-Encoding: gzip on a .gz file)', async () => {
    serving(WASM);
    expect(new Uint8Array(await fetchOrtWasmBinary('https://host.example/ort/decoded.wasm.gz'))).toEqual(WASM);
  });

  it('refuses a body that is neither gzip nor WASM, naming the URL and what it started with', async () => {
    serving(new TextEncoder().encode('<!doctype html>'));
    await expect(fetchOrtWasmBinary('https://host.example/ort/html.wasm.gz')).rejects.toThrow(
      'https://host.example/ort/html.wasm.gz is neither gzip nor a WebAssembly module (15 bytes, starting 3c 21 64 6f)',
    );
  });

  it('a missing file fails with the HTTP status and is fetched again on the next try', async () => {
    serving(WASM, 404);
    const url = 'https://host.example/ort/missing.wasm.gz';
    await expect(fetchOrtWasmBinary(url)).rejects.toThrow(`onnxruntime-web's WASM runtime was not found at ${url} (HTTP 404)`);
    serving(gzipSync(WASM));
    expect(new Uint8Array(await fetchOrtWasmBinary(url))).toEqual(WASM);
  });

  it('a truncated gzip file is an error, not a short module', async () => {
    const gz = gzipSync(WASM);
    serving(gz.subarray(0, gz.length - 20));
    await expect(fetchOrtWasmBinary('https://host.example/ort/truncated.wasm.gz')).rejects.toThrow();
  });
});
