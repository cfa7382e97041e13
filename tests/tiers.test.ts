/**
 * The `unit` tier builds nothing and loads no real model: every test file that starts a real
 * llama-server (imports tests/support/llama-server.ts) is listed in the `llama-server` tier, and every
 * one that imports a name of MODEL_TIER_IMPORTS (a real model, tokenizer build, runtime or process) in
 * the `model` tier or a costlier one (tests/tiers.ts); every Node test file that runs a production build
 * (vite's `build`, `npm pack`) is in the `build` tier.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILD_FILES, LLAMA_SERVER_FILES, MODEL_FILES, MODEL_TIER_IMPORTS, PROPERTY_FILES, TRAINING_FILES } from './tiers';

const ROOT = join(import.meta.dirname, '..');

/** The patterns tests/tiers.ts uses: `**\/` for any folders, `*` within a name, else literal. */
function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\*\*\//g, '\u0000').replace(/\*/g, '[^/]*').replace(/\u0000/g, '(?:.*/)?')}$`);
}
const matchesAny = (patterns: readonly string[]) => (file: string) => patterns.some((p) => globToRegExp(p).test(file));
const inLlamaServerTier = matchesAny(LLAMA_SERVER_FILES);
const inModelTier = matchesAny(MODEL_FILES);
const inBuildTier = matchesAny(BUILD_FILES);
const inCostlierTier = matchesAny([...LLAMA_SERVER_FILES, ...TRAINING_FILES, ...PROPERTY_FILES, ...BUILD_FILES]);

function testFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts') && !name.split('/').includes('node_modules'))
    .map((name) => relative(ROOT, join(ROOT, dir, name)));
}
const TEST_FILES = ['src', 'worker', 'scripts', 'tests', 'bench'].flatMap(testFiles);
const NODE_TEST_FILES = TEST_FILES.filter((file) => !file.endsWith('.browser.test.ts'));

/**
 * The names a file imports as values: `import { a, b as c } from …` and `const { a, b: c } = await
 * import(…)`; `import type` and `type a` left out.
 */
function importedValueNames(source: string): string[] {
  const lists = [...source.matchAll(/^import\s+(?!type\s)\{([^{}]*)\}\s*from\s/gm), ...source.matchAll(/\{([^{}]*)\}\s*=\s*await\s+import\(/g)];
  return lists.flatMap((m) =>
    m[1]!
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part && !part.startsWith('type '))
      .map((part) => part.split(/\s+as\s+|\s*:\s*/)[0]!),
  );
}
const modelTierReasons = (file: string): string[] => importedValueNames(readFileSync(join(ROOT, file), 'utf8')).filter((name) => Object.hasOwn(MODEL_TIER_IMPORTS, name));

describe('test tiers', () => {
  it('reads the patterns as vitest does for the forms tiers.ts uses', () => {
    expect(inLlamaServerTier('worker/backends/remote-backend.llama-server.test.ts')).toBe(true);
    expect(inLlamaServerTier('x.llama-server.test.ts')).toBe(true);
    expect(inLlamaServerTier('src/server/engine-proxy.test.ts')).toBe(true);
    expect(inLlamaServerTier('src/server/engine-proxy-attacks.test.ts')).toBe(false);
    expect(inLlamaServerTier('src/cli/cli.test.ts')).toBe(false);
  });

  it('every test file that starts a real llama-server runs in the llama-server tier, not in unit', () => {
    const starters = TEST_FILES.filter((file) => /support\/llama-server['"]/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(starters.length).toBeGreaterThanOrEqual(10);
    expect(starters.filter((file) => !inLlamaServerTier(file))).toEqual([]);
  });

  it('reads value imports, static and dynamic, leaving type-only ones out', () => {
    const source = "import { a, type B, c as d } from './x';\nimport type { E } from './y';\nimport {\n  f,\n} from 'z';\nconst g = 'import { h } from';\nit('x', async () => {\n  const { i, j: k } = await import('./w');\n});\n";
    expect(importedValueNames(source)).toEqual(['a', 'c', 'f', 'i', 'j']);
  });

  it('every unit-tier file that would load a real model or start a process runs in the model tier instead', () => {
    const heavy = NODE_TEST_FILES.filter((file) => !inCostlierTier(file) && modelTierReasons(file).length > 0);
    expect(heavy.length).toBeGreaterThanOrEqual(20);
    expect(heavy.filter((file) => !inModelTier(file)).map((file) => `${file}: ${modelTierReasons(file).join(', ')}`)).toEqual([]);
  });

  it('every Node test file that runs a production build (vite build, npm pack) runs in the build tier', () => {
    const builds = (file: string) => importedValueNames(readFileSync(join(ROOT, file), 'utf8')).includes('build') || /['"]pack['"]/.test(readFileSync(join(ROOT, file), 'utf8'));
    const builders = NODE_TEST_FILES.filter(builds);
    expect(builders).toContain('tests/build/build-output.test.ts');
    expect(builders.filter((file) => !inBuildTier(file))).toEqual([]);
    for (const file of BUILD_FILES) expect(existsSync(join(ROOT, file)), file).toBe(true);
  });

  it('the model tier lists only files that exist, need it, and are in no other tier', () => {
    for (const file of MODEL_FILES) {
      expect(existsSync(join(ROOT, file)), file).toBe(true);
      expect(modelTierReasons(file), file).not.toEqual([]);
      expect(inCostlierTier(file), file).toBe(false);
    }
  });
});
