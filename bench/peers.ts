/**
 * Section `peers`: our engine against transformers.js's own generate() and wllama (llama.cpp in WASM)
 * on the same micro weights, greedy, NEW_TOKENS new tokens, ids checked identical on every run (the
 * section throws otherwise). Ratios are ours ÷ theirs of decode tokens/s, medians of ROUNDS interleaved
 * pairs with their min–max: in Node (onnxruntime-node), and in Chromium on WASM, single-threaded (all
 * three) and with every core (a second page: a WASM module's thread count is fixed when it starts), at
 * 50 and 1,000 tokens of context. Prefill speed at 1,000 and 3,000 tokens (Node), and the peak memory
 * of a 4,000-token prefill in a process of its own, chunked (ours) and as one forward (before chunking).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launchBrowser, openPage, startVite } from '../tests/browser/harness';
import { round } from './measure';
import { perTokenCosts } from './per-token-costs';
import { nodePeers } from './peers-node';
import { loadTokenizer } from '../src/format/tokenizer/load-node';
import { benchPrompt, NEW_TOKENS, sameIds, type RunFigures } from './peers-workloads';
import type { BenchSection, SectionResult } from './section';

const ROUNDS = 7;

type Runner = (context: number) => Promise<RunFigures>;

/** How many leading ids two runs share. */
function agreeing(a: readonly number[], b: readonly number[]): number {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
}

/**
 * ROUNDS interleaved rounds of every runner at one context. The onnxruntime runners (ours and
 * transformers.js: the same kernels) must emit identical ids on every run — the section throws
 * otherwise; wllama (llama.cpp's kernels, another summation order) is held to it only where `exact`,
 * and its agreeing prefix is reported (a near-tie deep into a long prompt may go either way).
 */
async function rounds(label: string, runners: Record<string, Runner>, context: number, exact: (name: string) => boolean = () => true) {
  const names = Object.keys(runners);
  const out: Record<string, RunFigures[]> = Object.fromEntries(names.map((n) => [n, []]));
  const agree: Record<string, number> = Object.fromEntries(names.map((n) => [n, NEW_TOKENS]));
  let reference: number[] | null = null;
  for (const name of names) await runners[name]!(context); // warm-up, untimed
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(r + k) % names.length]!;
      const run = await runners[name]!(context);
      reference ??= run.ids;
      agree[name] = Math.min(agree[name]!, agreeing(run.ids, reference));
      if (exact(name) && !sameIds(run.ids, reference)) throw new Error(`peers: ${label} ${name} at ${context} tokens emitted other ids than ${names[0]}`);
      out[name]!.push(run);
    }
  }
  return Object.assign(out, { agree });
}

/** Median of per-round ratios a/b of a figure, with min and max: "1.14 [1.02–1.31]". */
function ratio(a: RunFigures[], b: RunFigures[], pick: (r: RunFigures) => number): { median: number; range: string } {
  const r = a.map((x, i) => pick(x) / pick(b[i]!)).sort((x, y) => x - y);
  const median = r.length % 2 ? r[r.length >> 1]! : (r[r.length / 2 - 1]! + r[r.length / 2]!) / 2;
  return { median: round(median), range: `${round(r[0]!)}–${round(r.at(-1)!)}` };
}

const decode = (r: RunFigures) => r.decodeTokS;
const prefill = (r: RunFigures) => r.prefillTokS;

/** Peak resident memory of a 4,000-token prefill in a process of its own (peers-memory.ts). */
function memory(who: 'ours' | 'unchunked'): { baselineMiB: number; peakMiB: number } {
  const script = fileURLToPath(new URL('./peers-memory.ts', import.meta.url));
  const idsFile = join(mkdtempSync(join(tmpdir(), 'peers-')), 'prompt.json');
  writeFileSync(idsFile, JSON.stringify(benchPrompt(loadTokenizer(), 4000).ids));
  const out = execFileSync(process.execPath, ['--import', 'tsx', script, who, idsFile], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out.trim().split('\n').at(-1)!) as { baselineMiB: number; peakMiB: number };
}

async function pagePeers(page: Page, threads: number) {
  await page.waitForFunction(() => window.ready === true, null, { timeout: 120_000 });
  const info = await page.evaluate((t) => window.peers.load(t), threads);
  const runner = (name: 'ours' | 'transformers' | 'wllama'): Runner => (context) => page.evaluate(([n, c]) => window.peers[n](c), [name, context] as const);
  return { info, ours: runner('ours'), transformers: runner('transformers'), wllama: runner('wllama') };
}

export const peersSection: BenchSection = {
  name: 'peers',
  summary: `micro model, ${ROUNDS} interleaved rounds: ours vs transformers.js generate() (Node, WASM) and wllama (WASM, 1 thread and all cores); prefill; 4k-prefill memory`,
  async run() {
    const result: SectionResult = {};
    const node = await nodePeers();
    try {
      for (const context of [50, 1000]) {
        const runs = await rounds('node', { ours: node.ours, transformers: node.transformers }, context);
        const r = ratio(runs.ours!, runs.transformers!, decode);
        const key = context === 50 ? 'decodeVsTransformersNode' : 'decodeVsTransformersNode1k';
        result[key] = r.median;
        result[`${key}Range`] = r.range;
      }
      const afterLoad = await rounds('node after load', { first: node.oursRightAfterLoad, steady: node.ours }, 50);
      result.firstGenerationAfterLoadVsSteady = ratio(afterLoad.first!, afterLoad.steady!, decode).median;
      for (const context of [1000, 3000]) {
        const runs = await rounds('node prefill', { ours: node.ours, transformers: node.transformers }, context);
        const r = ratio(runs.ours!, runs.transformers!, prefill);
        result[`prefillVsTransformers${context / 1000}k`] = r.median;
        result[`prefillVsTransformers${context / 1000}kRange`] = r.range;
      }
    } finally {
      await node.close();
    }

    const vite = await startVite();
    const browser = await launchBrowser();
    try {
      const single = await pagePeers((await openPage(browser, `${vite.url}/bench/pages/peers.html`)).page, 1);
      const cores = Math.min(4, single.info.cores);
      const multi = await pagePeers((await openPage(browser, `${vite.url}/bench/pages/peers.html`)).page, cores);
      result.wasmThreads = multi.info.threads;
      result.wasmIsolated = multi.info.isolated ? 'yes' : 'no';
      result.wllamaThreadsMulti = multi.info.wllamaThreads;
      for (const context of [50, 1000]) {
        const suffix = context === 50 ? '' : '1k';
        const runs = await rounds('wasm', { ours: single.ours, transformers: single.transformers, wllama: single.wllama }, context, (n) => n !== 'wllama' || context === 50);
        result[`wllamaAgreeingTokens${suffix || '50'}`] = runs.agree.wllama!;
        const t = ratio(runs.ours!, runs.transformers!, decode);
        const w = ratio(runs.ours!, runs.wllama!, decode);
        result[`decodeVsTransformersWasm${suffix}`] = t.median;
        result[`decodeVsTransformersWasm${suffix}Range`] = t.range;
        result[`decodeVsWllamaWasm${suffix}`] = w.median;
        result[`decodeVsWllamaWasm${suffix}Range`] = w.range;
      }
      const threaded = await rounds('wasm threads', { multi: multi.ours, single: single.ours, wllamaMulti: multi.wllama }, 50);
      if (threaded.agree.multi !== NEW_TOKENS) throw new Error('peers: ours multi-threaded emitted other ids than single-threaded');
      const m = ratio(threaded.multi!, threaded.single!, decode);
      result.decodeMultiVsSingleWasm = m.median;
      result.decodeMultiVsSingleWasmRange = m.range;
      result.decodeVsWllamaWasmMulti = ratio(threaded.multi!, threaded.wllamaMulti!, decode).median;
    } finally {
      await browser.close();
      await vite.server.close();
    }

    for (const [k, v] of Object.entries(await perTokenCosts())) result[`perToken.${k}`] = v;
    const ours = memory('ours');
    const unchunked = memory('unchunked');
    result.prefillPeakRssMiB4k = ours.peakMiB;
    result.prefillBaselineRssMiB = ours.baselineMiB;
    result.prefillPeakRssMiB4kUnchunked = unchunked.peakMiB;
    result.rounds = ROUNDS;
    return result;
  },
};
