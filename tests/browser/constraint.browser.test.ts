/**
 * Constrained decoding in the page's engine worker (XGrammar bundled by vite, its vocabulary fetched
 * from the models folder), on the tiny random model on WASM — under the dev server and in a
 * production build of the same worker. The tiny model wanders anywhere the mask allows, so what it
 * emits is the constraint's doing: a json_schema reply is valid JSON of its schema, a `required`
 * tool_calls reply is a call of an offered tool with valid arguments, and a schema XGrammar cannot
 * compile is an EngineError `invalid_constraint` on the page's side of the boundary.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@cfworker/json-schema';
import type { Browser, Page } from 'playwright-core';
import { build, preview, type PreviewServer } from 'vite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Constraint, GenerateResult } from '../../src/engine/contract';
import { parseEmitted } from '../../src/format/parse';
import { renderIds } from '../../src/format/render';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import { launchBrowser, openPage, ROOT, startVite } from './harness';

const tokenizer = loadTokenizer();
const PROMPT = renderIds({ messages: [{ role: 'user', content: 'Answer in JSON, or call a tool.' }], date: '11 August 2026' }, tokenizer);

const REPLY_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string', maxLength: 8 }, day: { enum: ['Monday', 'Tuesday'] }, count: { type: 'integer', minimum: 0, maximum: 99 } },
  required: ['city', 'day', 'count'],
  additionalProperties: false,
};
const TOOLS = [
  { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string', maxLength: 10 } }, required: ['city'], additionalProperties: false } },
  { name: 'convert', parameters: { type: 'object', properties: { amount: { type: 'integer', minimum: 0, maximum: 999 }, unit: { enum: ['EUR', 'USD'] } }, required: ['amount', 'unit'], additionalProperties: false } },
];
const SEEDS = [1, 2, 3];

let browser: Browser;
const pageLogs: string[][] = [];
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(({ task }) => {
  if (task.result?.state === 'fail') console.log(pageLogs.map((l) => l.join('\n')).join('\n---\n'));
});

async function enginePage(url: string): Promise<Page> {
  const { page, logs } = await openPage(browser, url);
  pageLogs.push(logs);
  await page.waitForFunction(() => window.ready === true);
  await page.evaluate(() => window.engine.load('tiny-llama', { device: 'wasm' }));
  return page;
}

/** Generations of the prompt under `constraint`, one per seed, at temperature 1. */
function generate(page: Page, constraint: Constraint, maxTokens: number): Promise<GenerateResult[]> {
  return page.evaluate(
    async ({ tokens, constraint, maxTokens, seeds }) => {
      const results = [];
      for (const seed of seeds) results.push(await window.engine.generate({ tokens, maxTokens, sampling: { temperature: 1, seed }, constraint }));
      return results;
    },
    { tokens: PROMPT, constraint, maxTokens, seeds: SEEDS },
  );
}

const validates = (schema: object, value: unknown) => new Validator(schema as never, '2020-12', false).validate(value).valid;

/** The checks, on a page whose engine has the tiny model loaded. */
function constrainedGenerations(page: () => Page): void {
  it('a json_schema reply is valid JSON of its schema', async () => {
    const results = await generate(page(), { type: 'json_schema', schema: REPLY_SCHEMA }, 96);
    for (const r of results) {
      expect(r.stop).toBe('eot');
      const value = JSON.parse(tokenizer.decode(r.tokens)) as unknown;
      expect(validates(REPLY_SCHEMA, value), JSON.stringify(value)).toBe(true);
    }
  });

  it('a required tool_calls reply is one call of an offered tool, its arguments valid', async () => {
    const results = await generate(page(), { type: 'tool_calls', mode: 'required', tools: TOOLS, builtins: [] }, 96);
    for (const r of results) {
      expect(r.stop).toBe('eot');
      const { toolCalls } = parseEmitted(r.tokens, 'eot', tokenizer);
      expect(toolCalls).toHaveLength(1);
      const [call] = toolCalls;
      const tool = TOOLS.find((t) => t.name === call!.name);
      expect(call!.kind, tokenizer.decode(r.tokens)).toBe('custom');
      expect(tool, call!.name).toBeDefined();
      expect(validates(tool!.parameters, call!.arguments), JSON.stringify(call!.arguments)).toBe(true);
    }
  });

  it('a schema XGrammar cannot compile is an EngineError invalid_constraint on the page, and the engine stays usable', async () => {
    const out = await page().evaluate(async (tokens) => {
      let error: { name: string; code: string; message: string; isEngineError: boolean } | null = null;
      try {
        await window.engine.generate({ tokens, maxTokens: 4, constraint: { type: 'json_schema', schema: { type: 'object', properties: { a: { type: 'strin' } }, required: ['a'] } } });
      } catch (e) {
        const err = e as { name: string; code: string; message: string };
        error = { name: err.name, code: err.code, message: err.message, isEngineError: e instanceof window.EngineError };
      }
      const after = await window.engine.generate({ tokens, maxTokens: 8, sampling: { temperature: 1, seed: 5 }, constraint: { type: 'json_object' } });
      return { error, after };
    }, PROMPT);
    expect(out.error).toMatchObject({ name: 'EngineError', code: 'invalid_constraint', isEngineError: true });
    expect(out.error!.message).toMatch(/strin/);
    expect(out.after.tokens.length).toBeGreaterThan(0);
    expect(tokenizer.decode(out.after.tokens).startsWith('{')).toBe(true);
  });
}

describe('under the dev server (vite transforms the worker)', () => {
  let vite: Awaited<ReturnType<typeof startVite>>;
  let page: Page;
  beforeAll(async () => {
    vite = await startVite();
    page = await enginePage(`${vite.url}/tests/browser/pages/engine.html`);
  }, 180_000);
  afterAll(async () => {
    await page?.close();
    await vite?.server.close();
  });
  constrainedGenerations(() => page);
});

describe('in a production build of the worker (vite build, served by vite preview)', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'llama-constraint-build-'));
  let server: PreviewServer;
  let page: Page;
  beforeAll(async () => {
    const configFile = join(ROOT, 'vite.config.ts');
    const input = join(ROOT, 'tests/browser/pages/engine.html');
    await build({ root: ROOT, configFile, logLevel: 'error', build: { outDir, emptyOutDir: true, reportCompressedSize: false, rolldownOptions: { input } } });
    server = await preview({ root: ROOT, configFile, logLevel: 'error', build: { outDir }, preview: { host: '127.0.0.1', port: 0, open: false } });
    page = await enginePage(`http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}/tests/browser/pages/engine.html`);
  }, 300_000);
  afterAll(async () => {
    await page?.close();
    await server?.close();
    rmSync(outDir, { recursive: true, force: true });
  });
  constrainedGenerations(() => page);
});
