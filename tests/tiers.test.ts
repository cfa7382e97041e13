/**
 * The `unit` tier builds nothing: every test file that starts a real llama-server (imports
 * tests/support/llama-server.ts) is listed in the `llama-server` tier (tests/tiers.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LLAMA_SERVER_FILES } from './tiers';

const ROOT = join(import.meta.dirname, '..');

/** The patterns tests/tiers.ts uses: `**\/` for any folders, `*` within a name, else literal. */
function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\*\*\//g, '\u0000').replace(/\*/g, '[^/]*').replace(/\u0000/g, '(?:.*/)?')}$`);
}
const inLlamaServerTier = (file: string) => LLAMA_SERVER_FILES.some((p) => globToRegExp(p).test(file));

function testFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts') && !name.split('/').includes('node_modules'))
    .map((name) => relative(ROOT, join(ROOT, dir, name)));
}

describe('test tiers', () => {
  it('reads the patterns as vitest does for the forms tiers.ts uses', () => {
    expect(inLlamaServerTier('worker/backends/remote-backend.llama-server.test.ts')).toBe(true);
    expect(inLlamaServerTier('x.llama-server.test.ts')).toBe(true);
    expect(inLlamaServerTier('src/server/engine-proxy.test.ts')).toBe(true);
    expect(inLlamaServerTier('src/server/engine-proxy-attacks.test.ts')).toBe(false);
    expect(inLlamaServerTier('src/cli/cli.test.ts')).toBe(false);
  });

  it('every test file that starts a real llama-server runs in the llama-server tier, not in unit', () => {
    const starters = ['src', 'worker', 'scripts', 'tests', 'bench']
      .flatMap(testFiles)
      .filter((file) => /support\/llama-server['"]/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(starters.length).toBeGreaterThanOrEqual(10);
    expect(starters.filter((file) => !inLlamaServerTier(file))).toEqual([]);
  });
});
