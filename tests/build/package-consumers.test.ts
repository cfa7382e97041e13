/**
 * The package as a developer gets it: `npm pack` (which builds the library), the tarball installed into
 * temporary copies of examples/node, examples/vite and examples/webpack (outside this repository, so nothing
 * can resolve to its sources), then the Node example asks the micro model "What is 123 * 45?", the Vite
 * example type-checks (strict, against the declarations), builds and runs in Chromium (its engine worker,
 * built by the app's bundler, answers), and the webpack 5 example builds and runs the same way. Nothing of
 * the tests is in the package or in either app's build.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createServer, preview } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../browser/harness';
import { outputFiles, testMarkersIn } from './output-scan';

const ROOT = join(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'llama-package-consumers-'));
// onnxruntime-node (a dependency of transformers.js too) would download CUDA libraries on Linux x64 without it.
const env = { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip', npm_config_loglevel: 'error' };
let tarball = '';

function run(cwd: string, command: string, args: string[], timeout = 300_000): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} in ${cwd} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** A copy of examples/<name> with the packed package installed. */
function installExample(name: string): string {
  const dir = join(work, name);
  cpSync(join(ROOT, 'examples', name), dir, { recursive: true, filter: (src) => !/(^|\/)(node_modules|dist|assets|llama-assets|package-lock\.json)$/.test(src.slice(join(ROOT, 'examples', name).length)) });
  run(dir, 'npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball]);
  return dir;
}

/** Relative imports that leave the example's folder (`../…` from its top, `../../…` from src/). */
const importsOutside = (dir: string): string[] =>
  outputFiles(dir)
    .filter((f) => /\.(m?js|ts|html)$/.test(f.path) && !f.path.startsWith('node_modules/'))
    .flatMap((f) => [...readFileSync(join(dir, f.path), 'utf8').matchAll(/(?:from\s*|import\s*\(?\s*)['"]((?:\.\.\/)+)[^'"]*['"]/g)].filter((m) => m[1]!.length / 3 > f.path.split('/').length - 1).map((m) => `${f.path}: ${m[0]}`));

beforeAll(() => {
  const packed = run(ROOT, 'npm', ['pack', '--pack-destination', work], 600_000);
  tarball = join(work, packed.stdout.trim().split('\n').pop()!);
}, 600_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed package', () => {
  it('holds the library, its declarations and the assets command, and nothing of the tests or the sources', () => {
    const listing = run(work, 'tar', ['-tzf', tarball]).stdout.split('\n').filter(Boolean);
    expect(listing).toEqual(expect.arrayContaining(['package/dist/lib/engine.js', 'package/dist/lib/types/src/package/engine.d.ts', 'package/bin/llama-agent-assets.mjs', 'package/CHANGELOG.md', 'package/dist/lib/files/micro-llama/weights.bin']));
    expect(listing.filter((p) => /^package\/(src|worker|tests|scripts|models|public)\//.test(p))).toEqual([]);
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked);
    run(unpacked, 'tar', ['-xzf', tarball]);
    expect(testMarkersIn(join(unpacked, 'package/dist'))).toEqual([]);
    expect(readdirSync(join(unpacked, 'package/dist/lib/assets')).some((f) => /^engine\.worker-.*\.js$/.test(f))).toBe(true);
  });
});

/** Opens the Vite example at `url`: the page's engine worker answers (main.ts writes its capabilities) and the element's own worker reports which model it would load. */
async function expectAppRuns(url: string): Promise<void> {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(url);
    await page.waitForFunction(() => !document.querySelector('#engine')!.textContent!.startsWith('Asking'), undefined, { timeout: 60_000 });
    expect(await page.locator('#engine').innerText()).toMatch(/^(WebGPU: |No WebGPU here)/);
    await page.waitForFunction(() => /·/.test(document.querySelector('llama-chat')?.shadowRoot?.querySelector('.widget-model')?.textContent ?? ''), undefined, { timeout: 60_000 });
    expect(errors).toEqual([]);
  } finally {
    await browser.close();
  }
}

/** Serves `folder` under `root` as static files (Vite's preview server) and opens the app there. */
async function expectStaticAppRuns(root: string, folder: string): Promise<void> {
  const server = await preview({ root, configFile: false, logLevel: 'error', build: { outDir: folder }, preview: { host: '127.0.0.1', port: 0 } });
  try {
    await expectAppRuns(`http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}/`);
  } finally {
    await server.close();
  }
}

/** The tests of one example, on a fresh install of it (`dir()` is its folder), after the check that it imports nothing outside it. */
function describeExample(name: string, body: (dir: () => string) => void): void {
  describe(`examples/${name} from the tarball`, () => {
    let dir = '';
    beforeAll(() => {
      dir = installExample(name);
    }, 600_000);

    it('imports nothing outside its folder', () => {
      expect(importsOutside(dir)).toEqual([]);
    });

    body(() => dir);
  });
}

describeExample('node', (dir) => {
  it('installs without node-llama-cpp and its ~700 MB of binaries (an optional peer, for GGUF models only)', () => {
    expect(existsSync(join(dir(), 'node_modules/node-llama-cpp'))).toBe(false);
    expect(existsSync(join(dir(), 'node_modules/@node-llama-cpp'))).toBe(false);
    const manifest = JSON.parse(readFileSync(join(dir(), 'node_modules/llama-agent-web/package.json'), 'utf8')) as Record<string, Record<string, unknown> | undefined>;
    expect(manifest.peerDependenciesMeta?.['node-llama-cpp']).toEqual({ optional: true });
  });

  it('the assets command refuses a wrong command with its usage', () => {
    const result = spawnSync('npx', ['llama-agent-assets', 'fetch', 'x'], { cwd: dir(), env, encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('llama-agent-assets: unknown command "fetch" (expected copy)\nusage: llama-agent-assets copy DIR [--micro]');
  });

  it('writes the micro model with the assets command, then answers "What is 123 * 45?" with 5535', () => {
    run(dir(), 'npx', ['llama-agent-assets', 'copy', 'assets', '--micro']);
    const answer = run(dir(), 'node', ['ask.mjs', 'What is 123 * 45?']).stdout.trim().split('\n').pop();
    expect(answer).toMatch(/\b5535\b/);
  }, 300_000);
});

describeExample('webpack', (dir) => {
  it('builds with webpack 5 (assets copied in): the engine worker is a chunk of its own, and nothing of the tests is in the output', () => {
    run(dir(), 'npx', ['llama-agent-assets', 'copy', 'llama-assets']);
    run(dir(), 'npx', ['webpack'], 600_000);
    const out = join(dir(), 'dist');
    const workerOnly = "runs with node-llama-cpp in Node (the CLI's --model FILE.gguf), not in a browser";
    const holding = outputFiles(out).filter((f) => f.path.endsWith('.js') && readFileSync(join(out, f.path), 'utf8').includes(workerOnly));
    expect(holding.length).toBeGreaterThan(0);
    expect(holding.map((f) => f.path)).not.toContain('main.js');
    expect(testMarkersIn(out)).toEqual([]);
  }, 600_000);

  it("runs in Chromium from its build: the engine worker webpack built answers the page, and <llama-chat> starts its own", async () => {
    await expectStaticAppRuns(dir(), '.');
  }, 180_000);
});

describeExample('vite', (dir) => {
  it('type-checks against the declarations (strict, library checks on, no export typed any)', () => {
    run(dir(), 'npx', ['tsc', '--noEmit']);
  }, 300_000);

  it('builds (with its assets copied in): the engine worker is a chunk of the app, and nothing of the tests is in the output', () => {
    run(dir(), 'npx', ['llama-agent-assets', 'copy', 'public/llama-assets']);
    run(dir(), 'npx', ['vite', 'build', '--logLevel', 'error']);
    const files = outputFiles(join(dir(), 'dist')).map((f) => f.path);
    expect(files.filter((f) => /^assets\/engine\.worker-.*\.js$/.test(f))).toHaveLength(1);
    expect(testMarkersIn(join(dir(), 'dist'))).toEqual([]);
  }, 300_000);

  it("runs in Chromium from its build: the engine worker the app's bundler built answers the page, and <llama-chat> starts its own", async () => {
    await expectStaticAppRuns(dir(), 'dist');
  }, 180_000);

  it('runs in Chromium under the Vite dev server (its config keeps the package out of pre-bundling)', async () => {
    const server = await createServer({ root: dir(), configFile: join(dir(), 'vite.config.ts'), logLevel: 'error', server: { host: '127.0.0.1', port: 0, hmr: false, watch: null } });
    await server.listen();
    try {
      await expectAppRuns(`http://127.0.0.1:${(server.httpServer!.address() as AddressInfo).port}/`);
    } finally {
      await server.close();
    }
  }, 180_000);
});
