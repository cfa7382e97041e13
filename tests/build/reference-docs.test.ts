/**
 * `npm run docs` (TypeDoc over the package's entry points) writes a page per entry point and documents
 * the functions a consumer starts with, their doc comments included.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const out = mkdtempSync(join(tmpdir(), 'llama-reference-docs-'));

beforeAll(() => {
  const result = spawnSync('npx', ['typedoc', '--out', out, '--logLevel', 'Error'], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0) throw new Error(`typedoc failed:\n${result.stdout}\n${result.stderr}`);
}, 300_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

it('has a page per entry point of package.json', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
  const entries = Object.keys(pkg.exports).filter((k) => k.startsWith('./') && k !== './package.json').map((k) => k.slice(2));
  expect(entries).toEqual(['engine', 'agent', 'format', 'openai', 'ai-sdk', 'node', 'widget']);
  expect(entries.filter((name) => !existsSync(join(out, 'modules', `${name}.html`)))).toEqual([]);
});

it('documents startEngine and runAgent with their comments', () => {
  expect(readFileSync(join(out, 'functions/engine.startEngine.html'), 'utf8')).toContain('StartEngineOptions');
  expect(readFileSync(join(out, 'functions/agent.runAgent.html'), 'utf8')).toContain('Runs the loop; iterate the events.');
});
