import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EngineError } from '../../src/engine/errors';
import { importNodeLlamaCpp, NODE_LLAMA_CPP_VERSION } from './node-llama-cpp-import';

describe('importNodeLlamaCpp', () => {
  it("a consumer without node-llama-cpp gets load_failed naming the install command (Node's own resolver error)", async () => {
    const missing = () => import(/* @vite-ignore */ ['node-llama-cpp', 'not-installed'].join('-')) as Promise<typeof import('node-llama-cpp')>;
    const error = await importNodeLlamaCpp(missing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ code: 'load_failed' });
    expect((error as Error).message).toBe(
      `GGUF models run on node-llama-cpp, which is not installed (an optional peer dependency): npm install node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`,
    );
  });

  it('any other failure passes through unchanged', async () => {
    const broken = new Error('binary ABI mismatch');
    await expect(importNodeLlamaCpp(() => Promise.reject(broken))).rejects.toBe(broken);
    const elsewhere = Object.assign(new Error("Cannot find package 'some-dependency'"), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(importNodeLlamaCpp(() => Promise.reject(elsewhere))).rejects.toBe(elsewhere);
  });

  it('names the version package.json pins: an optional peer for consumers, a dev dependency here', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as Record<string, Record<string, unknown> | undefined>;
    expect(pkg.peerDependencies?.['node-llama-cpp']).toBe(NODE_LLAMA_CPP_VERSION);
    expect(pkg.peerDependenciesMeta?.['node-llama-cpp']).toEqual({ optional: true });
    expect(pkg.devDependencies?.['node-llama-cpp']).toBe(NODE_LLAMA_CPP_VERSION);
    expect(pkg.dependencies?.['node-llama-cpp']).toBeUndefined();
  });
});
