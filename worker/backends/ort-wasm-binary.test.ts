import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fetchOrtWasmBinary } from './ort-wasm-binary';

const WASM = Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...Array.from({ length: 4000 }, (_, i) => i % 7)]);

function serving(body: Uint8Array, status = 200): { fetcher: typeof fetch; calls: string[] } {
  const calls: string[] = [];
  const fetcher = (async (url: string) => {
    calls.push(url);
    return new Response(status === 200 ? new Uint8Array(body) : 'missing', { status });
  }) as unknown as typeof fetch;
  return { fetcher, calls };
}

describe('fetchOrtWasmBinary', () => {
  it('inflates the gzipped runtime to the exact WASM bytes, fetching a URL once', async () => {
    const { fetcher, calls } = serving(gzipSync(WASM, { level: 9 }));
    const url = 'https://host.example/ort/a.wasm.gz';
    const first = await fetchOrtWasmBinary(url, fetcher);
    expect(new Uint8Array(first)).toEqual(WASM);
    expect(await fetchOrtWasmBinary(url, fetcher)).toBe(first);
    expect(calls).toEqual([url]);
  });

  it('accepts a body the server already decoded (Content-Encoding: gzip on a .gz file)', async () => {
    const { fetcher } = serving(WASM);
    expect(new Uint8Array(await fetchOrtWasmBinary('https://host.example/ort/decoded.wasm.gz', fetcher))).toEqual(WASM);
  });

  it('refuses a body that is neither gzip nor WASM, naming the URL and what it started with', async () => {
    const { fetcher } = serving(new TextEncoder().encode('<!doctype html>'));
    await expect(fetchOrtWasmBinary('https://host.example/ort/html.wasm.gz', fetcher)).rejects.toThrow(
      'https://host.example/ort/html.wasm.gz is neither gzip nor a WebAssembly module (15 bytes, starting 3c 21 64 6f)',
    );
  });

  it('a missing file fails with the HTTP status and is fetched again on the next try', async () => {
    const missing = serving(WASM, 404);
    const url = 'https://host.example/ort/missing.wasm.gz';
    await expect(fetchOrtWasmBinary(url, missing.fetcher)).rejects.toThrow(`onnxruntime-web's WASM runtime was not found at ${url} (HTTP 404)`);
    const { fetcher } = serving(gzipSync(WASM));
    expect(new Uint8Array(await fetchOrtWasmBinary(url, fetcher))).toEqual(WASM);
  });

  it('a truncated gzip file is an error, not a short module', async () => {
    const gz = gzipSync(WASM);
    const { fetcher } = serving(gz.subarray(0, gz.length - 20));
    await expect(fetchOrtWasmBinary('https://host.example/ort/truncated.wasm.gz', fetcher)).rejects.toThrow();
  });
});
