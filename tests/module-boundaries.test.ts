/**
 * The module boundaries of .dependency-cruiser.cjs (checked on the real tree by `npm run check:deps`)
 * catch what they are written for: each rule is run over a small made-up tree that breaks it once, and
 * a tree that keeps every boundary passes.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type IConfiguration } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const config = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as IConfiguration;
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The rule violations of a tree of files (path → source), as `rule: from → to`. */
async function violations(files: Record<string, string>): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'boundaries-'));
  dirs.push(dir);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(join(dir, dirname(path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  const { tsConfig: _, ...options } = config.options ?? {};
  const folders = [...new Set(Object.keys(files).map((path) => path.split('/')[0]!))];
  const result = await cruise(folders, { ...options, baseDir: dir, ruleSet: { forbidden: config.forbidden ?? [] }, validate: true });
  const output = result.output as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> } };
  return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to.replace(/^.*node_modules\//, 'node_modules/')}`).sort();
}

const SHARED = { 'src/engine/contract.ts': 'export const X = 1;\n', 'worker/engine.worker.ts': "import { X } from '../src/engine/contract';\nexport const Y = X;\n" };

describe('module boundaries', () => {
  it('a tree that keeps them passes: the page names the worker script, the Node-only folders use Node', async () => {
    expect(
      await violations({
        ...SHARED,
        'src/ui/page.ts': "import { X } from '../engine/contract';\nexport const url = new URL('../../worker/engine.worker.ts', import.meta.url) && X;\n",
        'src/cli/main.ts': "import { readFileSync } from 'node:fs';\nimport { X } from '../engine/contract';\nexport const read = () => readFileSync('x') && X;\n",
        'src/ui/page.test.ts': "import { Y } from '../../worker/engine.worker';\nimport 'node:fs';\nexport const T = Y;\n",
      }),
    ).toEqual([]);
  });

  const broken: Record<string, [Record<string, string>, string]> = {
    'the page importing a worker internal': [{ ...SHARED, 'worker/engine.ts': 'export const E = 1;\n', 'src/ui/page.ts': "import { E } from '../../worker/engine';\nexport const P = E;\n" }, 'page-not-worker-internals: src/ui/page.ts → worker/engine.ts'],
    'the sandbox importing the tools': [{ 'src/tools/texts.ts': 'export const T = 1;\n', 'src/sandbox/run.ts': "import { T } from '../tools/texts';\nexport const R = T;\n" }, 'sandbox-and-tools-one-way: src/sandbox/run.ts → src/tools/texts.ts'],
    'product code importing tests/': [{ 'tests/support/hook.ts': 'export const H = 1;\n', 'src/engine/a.ts': "import { H } from '../../tests/support/hook';\nexport const A = H;\n" }, 'product-not-tests-or-bench: src/engine/a.ts → tests/support/hook.ts'],
    'browser code importing a Node built-in': [{ 'src/format/a.ts': "import { readFileSync } from 'node:fs';\nexport const A = readFileSync;\n" }, 'node-only-in-node-folders: src/format/a.ts → fs'],
    'browser code importing a Node-only file': [{ 'worker/create-node-engine.ts': 'export const N = 1;\n', 'worker/backends/b.ts': "import { N } from '../create-node-engine';\nexport const B = N;\n" }, 'browser-code-not-node-only-files: worker/backends/b.ts → worker/create-node-engine.ts'],
    'browser code importing a native Node package': [{ 'worker/backends/b.ts': "import { getLlama } from 'node-llama-cpp';\nexport const B = getLlama;\n" }, 'node-packages-in-node-folders: worker/backends/b.ts → node_modules/node-llama-cpp/dist/index.js'],
    'a cycle': [{ 'src/api/a.ts': "import { B } from './b';\nexport const A = () => B;\n", 'src/api/b.ts': "import { A } from './a';\nexport const B = () => A;\n" }, 'no-circular: src/api/a.ts → src/api/b.ts'],
    'an import of nothing': [{ 'src/api/a.ts': "import { B } from './missing';\nexport const A = B;\n" }, 'not-to-unresolvable: src/api/a.ts → ./missing'],
  };
  for (const [name, [files, violation]] of Object.entries(broken)) {
    it(`refuses ${name}`, async () => {
      expect(await violations(files)).toContain(violation);
    });
  }
});
