/**
 * Section `micro`: the trained micro model. Its accuracy table (greedy, unforced full loops on the
 * in-distribution, test, dev (the older held-out), new-names, custom-tools and after-error sets of scripts/micro-llama/evaluate.ts, fewer dialogues than the
 * manifest's evaluation, and the whole paraphrase set of scripts/micro-llama/paraphrase-eval.ts) and its decode speed on onnxruntime-node, and in Chromium on WASM and on
 * WebGPU (SwiftShader: a software GPU, so a correctness tier, not a speed one).
 */
import { loadTokenizer } from '../src/format/tokenizer/load-node';
import { MODELS } from '../src/engine/models';
import { renderIds } from '../src/format/render';
import { EOM, EOT, END_OF_TEXT } from '../src/format/special-tokens';
import { artifactCorpusIds, evaluate } from '../scripts/micro-llama/evaluate';
import { evaluateParaphrases } from '../scripts/micro-llama/paraphrase-score';
import { buildMicroModel, readMicroArtifact } from '../scripts/setup/micro-model';
import { launchBrowser, openPage, startVite } from '../tests/browser/harness';
import { createNodeEngine } from '../worker/create-node-engine';
import type { GenerateRequest, GenerateResult } from '../src/engine/contract';
import type { EngineClient } from '../src/engine/client';
import { median, round } from './measure';
import type { BenchSection } from './section';

const DIALOGUES = 60;
const DECODE_TOKENS = { node: 64, wasm: 64, webgpu: 12 };

export const microSection: BenchSection = {
  name: 'micro',
  summary: `micro model: full-loop accuracy (${DIALOGUES} dialogues per set) and decode tok/s on Node, WASM, WebGPU (SwiftShader)`,
  async run() {
    const micro = MODELS.find((m) => m.demo);
    if (!micro) throw new Error('no demo (micro) model in models.json');
    const tokenizer = loadTokenizer();
    const prompt = renderIds({ builtinTools: ['brave_search', 'wolfram_alpha', 'code_interpreter'], date: '2026-08-11', messages: [{ role: 'user', content: 'Hello!' }] }, tokenizer);
    const request = (maxTokens: number): GenerateRequest => ({
      tokens: prompt,
      maxTokens,
      sampling: { temperature: 0 },
      logitsProcessors: [{ type: 'ban', tokens: [EOM, EOT, END_OF_TEXT] }],
    });
    const tokPerS = (r: GenerateResult) => (r.stats.decodedTokens - 1) / (r.stats.decodeMs / 1000);

    // The ONNX model is expanded from the committed artifact first: an export left by a training run is not measured.
    await buildMicroModel();
    const engine = createNodeEngine();
    await engine.load(micro.id);
    const artifact = await readMicroArtifact();
    const results = await evaluate(engine, tokenizer, artifactCorpusIds(artifact.manifest, tokenizer), { count: DIALOGUES, sets: ['inDistribution', 'test', 'heldOut', 'newNames', 'customTools', 'afterError'], constrained: true });
    const paraphrases = await evaluateParaphrases(engine, tokenizer, true);
    const node: number[] = [];
    for (let i = 0; i < 5; i++) node.push(tokPerS(await engine.generate(request(DECODE_TOKENS.node))));
    await engine.unload();

    const browser = await inBrowser(micro.id, (device) => request(DECODE_TOKENS[device]));
    return {
      e2eInDist: results.inDistribution!.table.all!.fullLoop,
      // Held-out = the test split (untouched until run 5 was trained); dev = the older held-out split, which guided runs 5–7.
      e2eHeldOut: results.test!.table['all, tokens seen']!.fullLoop,
      e2eDev: results.heldOut!.table['all, tokens seen']!.fullLoop,
      // Issue 14: names that occur nowhere in training, host JSON tools, and a clean answer after every kind of failure.
      newNames: results.newNames!.table.all!.fullLoop,
      customTools: results.customTools!.table.all!.fullLoop,
      afterError: results.afterError!.table.all!.cleanAnswer,
      // Issue 46: the pre-registered paraphrase set (scripts/micro-llama/paraphrase-eval.ts), full loops, overall and by intent.
      paraphrases: paraphrases.paraphrases,
      paraphrasesByIntent: paraphrases.byIntent,
      dialoguesPerSet: DIALOGUES,
      nodeTokPerS: round(median(node)),
      wasmTokPerS: round(median(browser.wasm.map(tokPerS))),
      webgpuSwiftShaderTokPerS: round(median(browser.webgpu.map(tokPerS))),
    };
  },
};

declare global {
  interface Window {
    engine: EngineClient;
    ready: boolean;
  }
}

/** Decode runs in Chromium through the real engine worker, on WASM (3 runs) and WebGPU (1 run). */
async function inBrowser(modelId: string, request: (device: 'wasm' | 'webgpu') => GenerateRequest) {
  const vite = await startVite();
  const browser = await launchBrowser();
  try {
    const out = { wasm: [] as GenerateResult[], webgpu: [] as GenerateResult[] };
    for (const [device, runs] of [['wasm', 3], ['webgpu', 1]] as const) {
      const { page } = await openPage(browser, `${vite.url}/tests/browser/pages/engine.html`);
      await page.waitForFunction(() => window.ready === true);
      await page.evaluate(({ id, device }) => window.engine.load(id, { device }).then(() => undefined), { id: modelId, device });
      for (let i = 0; i < runs; i++) out[device].push(await page.evaluate((r) => window.engine.generate(r), request(device)));
      await page.close();
    }
    return out;
  } finally {
    await browser.close();
    await vite.server.close();
  }
}
