/**
 * What ships, built as `npm run build` and `npm run build:widget` build it (each into a temporary
 * folder): no file of either output holds anything of the tests' hooks, the widget's entry (with the
 * chunks it imports statically) stays within 150 KB gzip, and the widget's folder without the demo
 * model pack stays under 50 MB.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widgetBuildConfig } from '../../vite.widget.config';
import { gzipBytes, outputFiles, staticClosure, testMarkersIn } from './output-scan';

const ROOT = join(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'llama-build-output-'));
const pageOut = join(work, 'page');
const widgetOut = join(work, 'widget');
const testWidgetOut = join(work, 'test-widget');

const ENTRY_GZIP_BUDGET = 150 * 1024;
/**
 * 50 MB (decimal). What the folder must carry: Pyodide (13.5 MB), onnxruntime-web's WASM (6.6 MB gzipped,
 * inflated in the worker), the tokenizer (6 MB compact), WebLLM's chunk (6 MB, a WASM module inlined) and
 * XGrammar (1 MB).
 */
const WIDGET_FOLDER_BUDGET = 50_000_000;

beforeAll(async () => {
  await build({ root: ROOT, configFile: join(ROOT, 'vite.config.ts'), logLevel: 'error', build: { outDir: pageOut, emptyOutDir: true, reportCompressedSize: false } });
  await build({ ...widgetBuildConfig({ outDir: widgetOut, demoModels: false }), logLevel: 'error' });
  // The widget's test entry, to show the scan finds the hooks where they are.
  await build({ ...widgetBuildConfig({ outDir: testWidgetOut, copyAssets: false, entry: join(ROOT, 'tests/browser/hooks/widget-test-entry.ts') }), logLevel: 'error' });
}, 600_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('nothing of the tests ships', () => {
  it('the scan finds the hooks in a build of the widget test entry', () => {
    const found = testMarkersIn(testWidgetOut);
    expect(found).toEqual(expect.arrayContaining([expect.stringMatching(/: forceNextRun$/), expect.stringMatching(/^assets\/engine-test\.worker-.*\.js: /)]));
  });

  it('the page build holds no test hook', () => {
    expect(outputFiles(pageOut).length).toBeGreaterThan(3);
    expect(testMarkersIn(pageOut)).toEqual([]);
  });

  it('the widget build holds no test hook', () => {
    expect(outputFiles(widgetOut).some((f) => f.path === 'llama-chat.js')).toBe(true);
    expect(testMarkersIn(widgetOut)).toEqual([]);
  });
});

describe('the lean widget', () => {
  it('its entry and the chunks it imports statically are at most 150 KB gzip; the runtimes are not among them', () => {
    const closure = staticClosure(widgetOut, 'llama-chat.js');
    const gzip = closure.reduce((sum, file) => sum + gzipBytes(join(widgetOut, file)), 0);
    console.log(`widget entry: ${closure.join(', ')} = ${(gzip / 1024).toFixed(1)} KB gzip`);
    expect(gzip).toBeLessThanOrEqual(ENTRY_GZIP_BUDGET);
    // What loads on first need lives in chunks of its own.
    const chunks = outputFiles(widgetOut).map((f) => f.path);
    for (const lazy of [/^local-math-.*\.js$/, /^llama-tokenizer-.*\.js$/, /^pyodide-sandbox-.*\.js$/, /^common-.*\.js$/, /^assets\/onnx-backend-.*\.js$/]) {
      expect(chunks.filter((c) => lazy.test(c)), String(lazy)).toHaveLength(1);
      expect(closure.filter((c) => lazy.test(c)), String(lazy)).toEqual([]);
    }
  });

  it('its folder without the demo model pack is under 50 MB, with the tokenizer, onnxruntime-web gzipped and without the local models', () => {
    const files = outputFiles(widgetOut);
    const total = files.reduce((sum, f) => sum + f.bytes, 0);
    console.log(`dist/widget without the demo pack: ${(total / 1e6).toFixed(1)} MB in ${files.length} files`);
    expect(total).toBeLessThan(WIDGET_FOLDER_BUDGET);
    expect(files.some((f) => f.path === 'models/llama-3.1-tokenizer/tokenizer.json')).toBe(true);
    expect(files.filter((f) => f.path.startsWith('ort/')).map((f) => f.path).sort()).toEqual(['ort/ort-wasm-simd-threaded.asyncify.mjs', 'ort/ort-wasm-simd-threaded.asyncify.wasm.gz']);
    expect(files.filter((f) => /^models\/(tiny-llama|micro-llama)\//.test(f.path))).toEqual([]);
  });
});
