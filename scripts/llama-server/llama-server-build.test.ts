import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LLAMA_SERVER_CMAKE_FLAGS, llamaServerBinaryPath, llamaServerDir, llamaServerSource, readLlamaServerBuild } from './llama-server-build';

describe('this machine’s llama-server (built by the llama-server tier’s setup or .ci/run)', () => {
  it('is built from the llama.cpp commit node-llama-cpp ships, with the offline flags, and records its build time', async () => {
    const source = llamaServerSource();
    expect(source.commit).toMatch(/^[0-9a-f]{40}$/);
    // The repository pins it as a dev dependency (the package lists it as an optional peer).
    const pinned = (JSON.parse(readFileSync('package.json', 'utf8')) as { devDependencies: Record<string, string> }).devDependencies['node-llama-cpp'];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(source.nodeLlamaCppVersion).toBe(pinned);
    const info = await readLlamaServerBuild(source);
    expect(info).not.toBeNull();
    expect(info!.commit).toBe(source.commit);
    expect(info!.cmakeFlags).toEqual([...LLAMA_SERVER_CMAKE_FLAGS]);
    expect(info!.buildSeconds).toBeGreaterThan(0);
    expect(LLAMA_SERVER_CMAKE_FLAGS).toEqual(expect.arrayContaining(['-DLLAMA_USE_PREBUILT_UI=OFF', '-DLLAMA_BUILD_UI=OFF', '-DLLAMA_OPENSSL=OFF', '-DLLAMA_BUILD_TESTS=OFF', '-DLLAMA_BUILD_EXAMPLES=OFF']));
  });

  it('runs, and says it is that commit', () => {
    const source = llamaServerSource();
    // It prints its version on stderr.
    const run = spawnSync(llamaServerBinaryPath(source), ['--version'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(`${run.stdout}${run.stderr}`).toContain(`commit ${source.commit.slice(0, 7)}`);
  });

  it('lives in a cache outside the repository, keyed by version and commit', () => {
    const dir = llamaServerDir();
    expect(dir.startsWith(join(process.cwd(), ''))).toBe(false);
    const { nodeLlamaCppVersion, commit } = llamaServerSource();
    expect(dir.endsWith(`llama-agent/llama-server-${nodeLlamaCppVersion}-${commit.slice(0, 12)}-r1`)).toBe(true);
  });
});
