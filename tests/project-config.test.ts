/**
 * The project's own tooling as a user meets it: npm commands print no config warnings and a plain
 * install still skips onnxruntime-node's CUDA download; the dev server never moves to another port
 * silently (the README and the CLI's default tool proxy name 5173); the page's and the widget's builds
 * write to folders that do not contain each other (a build empties its own folder only).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join, relative, resolve } from 'node:path';
import { createServer, resolveConfig } from 'vite';
import { describe, expect, it } from 'vitest';
import { widgetBuildConfig } from '../vite.widget.config';

const ROOT = join(import.meta.dirname, '..');

describe('npm', () => {
  it('prints no config warning in this project', () => {
    const run = spawnSync('npm', ['config', 'get', 'save-exact'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'warn' } });
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe('true');
    expect(run.stderr).not.toMatch(/unknown|warn/i);
  });

  it('an installed copy of the package runs no script of ours: setup is `prepare` (the repository\'s own install), never an install hook', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(Object.keys(pkg.scripts).filter((name) => ['preinstall', 'install', 'postinstall'].includes(name))).toEqual([]);
    expect(pkg.scripts.prepare).toBe('tsx scripts/setup.ts');
  });

  it("denies onnxruntime-node's install script in package.json (npm's allowScripts), so a plain install downloads no CUDA libraries", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
    expect(pkg.allowScripts?.['onnxruntime-node']).toBe(false);
  });
});

describe('vite', () => {
  it('the dev server fails on a taken port instead of moving to the next one', async () => {
    const blocker = createNetServer();
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done));
    const port = (blocker.address() as AddressInfo).port;
    const server = await createServer({ root: ROOT, configFile: join(ROOT, 'vite.config.ts'), logLevel: 'silent', server: { host: '127.0.0.1', port, hmr: false, watch: null } });
    try {
      await expect(server.listen()).rejects.toThrow(new RegExp(`Port ${port} is already in use`));
    } finally {
      await server.close();
      blocker.close();
    }
  });

  it('the page build and the widget build write to separate folders', async () => {
    const page = await resolveConfig({ root: ROOT, configFile: join(ROOT, 'vite.config.ts'), logLevel: 'silent' }, 'build');
    const pageOut = resolve(ROOT, page.build.outDir);
    const widgetOut = resolve(ROOT, widgetBuildConfig().build!.outDir!);
    const inside = (a: string, b: string) => !relative(a, b).startsWith('..');
    expect(inside(pageOut, widgetOut)).toBe(false);
    expect(inside(widgetOut, pageOut)).toBe(false);
  });
});
