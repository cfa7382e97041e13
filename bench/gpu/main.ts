/**
 * GPU ONLY — this page cannot run in CI or on a machine without WebGPU: it needs a browser with
 * WebGPU, the real weights (downloaded once into the browser's cache), and GPU memory for two copies
 * of the model (about 10 GB for the 8B q4f16; use ?model=Llama-3.2-1B-Instruct-q4f16_1-MLC on a
 * smaller GPU). Run `npx vite`, open http://localhost:5173/bench/gpu/.
 *
 * It measures decode speed (tokens/s after the first token) of our engine worker (webllm backend:
 * web-llm's forward, our sampler choosing every token in JS) against web-llm's own MLCEngine
 * (`CreateMLCEngine` + `chat.completions.create`, streaming), on the same weights and model library,
 * the same messages, the same number of generated tokens, in interleaved runs (order alternating),
 * and prints medians and the ratio ours/theirs on the page and in the console.
 *
 * Known differences, printed with the result:
 * - Stopping: ours bans the stop ids (a logits processor) so it emits exactly `tokens`; web-llm gets
 *   `ignore_eos: true` and `max_tokens`. Both stop on length.
 * - Prompt: ours is rendered by src/format, web-llm's by its conversation template; both prompt
 *   lengths are shown (they should be within a few tokens).
 * - Where it runs: our engine lives in a Web Worker (results cross comlink); CreateMLCEngine runs on
 *   this page's main thread.
 * - Sampling: ours copies each step's logits to the CPU and samples in JS; web-llm samples itself.
 */
import { CreateMLCEngine, type ChatCompletionMessageParam, type CompletionUsage, type MLCEngine } from '@mlc-ai/web-llm';
import { EngineClient } from '../../src/engine/client';
import type { SamplingParams } from '../../src/engine/contract';
import { findModel, type ModelEntry } from '../../src/engine/model-list';
import { MODELS } from '../../src/engine/models';
import { renderIds } from '../../src/format/render';
import { END_OF_TEXT, EOM, EOT } from '../../src/format/special-tokens';
import { createTokenizer } from '../../src/format/tokenizer/llama-tokenizer';
import { median } from '../measure';
import { webLlmModelRecord } from '../../worker/backends/webllm-backend';

const query = new URLSearchParams(location.search);
const MODEL_ID = query.get('model') ?? 'Llama-3.1-8B-Instruct-q4f16_1-MLC';
const TOKENS = Number(query.get('tokens') ?? 128);
const RUNS = Number(query.get('runs') ?? 5);
const SAMPLED = query.get('sampled') === '1';
const MODELS_BASE = new URL('/models/', location.href).href;
const WASM_BASE = new URL('/ort/', location.href).href;

const MESSAGES: ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'Write a detailed, multi-paragraph history of the printing press, from Gutenberg to the present day.' },
];

const logEl = document.getElementById('log')!;
const resultEl = document.getElementById('result')!;

function log(line: string): void {
  console.log(`[bench/gpu] ${line}`);
  logEl.textContent = logEl.textContent === 'starting…' ? line : `${logEl.textContent}\n${line}`;
}

interface RunFigures {
  /** Tokens/s between the first and the last generated token, as the engine measured it. */
  engineTokS: number;
  /** The same, from the arrival times of streamed chunks on this page (includes crossing to the page). */
  pageTokS: number;
  generated: number;
  promptTokens: number;
}

type Runner = () => Promise<RunFigures>;

async function main(): Promise<void> {
  if (!('gpu' in navigator)) throw new Error('this browser has no WebGPU: this page needs a GPU browser (Chrome/Edge 113+)');
  const entry = findModel(MODELS, MODEL_ID);
  if (!entry || entry.backend !== 'webllm') throw new Error(`"${MODEL_ID}" is not a web-llm model of models/models.json`);
  if (!(TOKENS >= 2) || !(RUNS >= 1)) throw new Error('tokens must be ≥ 2 and runs ≥ 1');
  log(`model ${entry.id}, ${TOKENS} tokens, ${RUNS} runs each, ${SAMPLED ? 'temperature 0.6 / top-p 0.9' : 'greedy'}`);

  const tokenizerResponse = await fetch(`${MODELS_BASE}llama-3.1-tokenizer/tokenizer.json`);
  if (!tokenizerResponse.ok) throw new Error('tokenizer.json not found under /models/: run `npm run setup`');
  const tokenizer = createTokenizer((await tokenizerResponse.json()) as object);
  const promptIds = renderIds({ messages: MESSAGES.map((m) => ({ role: m.role as 'system' | 'user', content: m.content as string })) }, tokenizer);

  log('loading our engine (worker, webllm backend)…');
  const client = EngineClient.start({ modelsBaseUrl: MODELS_BASE, wasmBaseUrl: WASM_BASE });
  await client.load(entry.id, { onProgress: (p) => setProgress('ours', p.text) });
  log('loading web-llm MLCEngine…');
  const webllm = await CreateMLCEngine(entry.id, {
    appConfig: { model_list: [await webLlmModelRecord(entry, MODELS_BASE)] },
    initProgressCallback: (r) => setProgress('web-llm', r.text),
  });

  const runners: Record<'ours' | 'webllm', Runner> = {
    ours: () => runOurs(client, promptIds),
    webllm: () => runWebLlm(webllm),
  };
  log('warm-up (one run each, not counted)…');
  await runners.ours();
  await runners.webllm();
  const figures: Record<'ours' | 'webllm', RunFigures[]> = { ours: [], webllm: [] };
  for (let r = 0; r < RUNS; r++) {
    for (const name of r % 2 === 0 ? (['ours', 'webllm'] as const) : (['webllm', 'ours'] as const)) {
      const f = await runners[name]();
      figures[name].push(f);
      log(`run ${r + 1} ${name.padEnd(6)}: ${f.engineTokS.toFixed(1)} tok/s (engine), ${f.pageTokS.toFixed(1)} tok/s (page), ${f.generated} tokens, prompt ${f.promptTokens}`);
    }
  }
  report(entry, figures);
  client.terminate();
  await webllm.unload();
}

async function runOurs(client: EngineClient, promptIds: number[]): Promise<RunFigures> {
  const arrivals: Array<{ t: number; n: number }> = [];
  const sampling: SamplingParams = SAMPLED ? { temperature: 0.6, topP: 0.9, seed: 1 } : { temperature: 0 };
  const result = await client.generate(
    { tokens: promptIds, sampling, maxTokens: TOKENS, logitsProcessors: [{ type: 'ban', tokens: [END_OF_TEXT, EOM, EOT] }] },
    (ids) => arrivals.push({ t: performance.now(), n: ids.length }),
  );
  const { stats } = result;
  return {
    // decodedTokens includes the first token, which is sampled during (and timed with) the prefill.
    engineTokS: (stats.decodedTokens - 1) / (stats.decodeMs / 1000),
    pageTokS: pageRate(arrivals),
    generated: result.tokens.length,
    promptTokens: stats.promptTokens,
  };
}

async function runWebLlm(engine: MLCEngine): Promise<RunFigures> {
  const arrivals: Array<{ t: number; n: number }> = [];
  let usage: CompletionUsage | undefined;
  const stream = await engine.chat.completions.create({
    messages: MESSAGES,
    max_tokens: TOKENS,
    ignore_eos: true,
    stream: true,
    stream_options: { include_usage: true },
    ...(SAMPLED ? { temperature: 0.6, top_p: 0.9, seed: 1 } : { temperature: 0 }),
  });
  for await (const chunk of stream) {
    if (chunk.choices[0]?.delta.content) arrivals.push({ t: performance.now(), n: 1 });
    if (chunk.usage) usage = chunk.usage;
  }
  if (!usage) throw new Error('web-llm returned no usage (stream_options.include_usage)');
  return {
    engineTokS: usage.extra.decode_tokens_per_s,
    pageTokS: pageRate(arrivals),
    generated: usage.completion_tokens,
    promptTokens: usage.prompt_tokens,
  };
}

/** Tokens/s from the first arrival to the last (chunks of n tokens each). */
function pageRate(arrivals: ReadonlyArray<{ t: number; n: number }>): number {
  if (arrivals.length < 2) return NaN;
  const after = arrivals.slice(1).reduce((s, a) => s + a.n, 0);
  return after / ((arrivals.at(-1)!.t - arrivals[0]!.t) / 1000);
}

function report(entry: ModelEntry, figures: Record<'ours' | 'webllm', RunFigures[]>): void {
  const m = (name: 'ours' | 'webllm', key: 'engineTokS' | 'pageTokS' | 'generated' | 'promptTokens') => median(figures[name].map((f) => f[key]));
  const out = {
    model: entry.id,
    tokens: TOKENS,
    runs: RUNS,
    sampling: SAMPLED ? 'temperature 0.6, top-p 0.9' : 'greedy',
    oursDecodeTokS: round1(m('ours', 'engineTokS')),
    webllmDecodeTokS: round1(m('webllm', 'engineTokS')),
    ratioOursOverWebllm: round3(m('ours', 'engineTokS') / m('webllm', 'engineTokS')),
    oursPageTokS: round1(m('ours', 'pageTokS')),
    webllmPageTokS: round1(m('webllm', 'pageTokS')),
    pageRatioOursOverWebllm: round3(m('ours', 'pageTokS') / m('webllm', 'pageTokS')),
    oursGenerated: m('ours', 'generated'),
    webllmGenerated: m('webllm', 'generated'),
    oursPromptTokens: m('ours', 'promptTokens'),
    webllmPromptTokens: m('webllm', 'promptTokens'),
    adapter: navigator.userAgent,
    ranAt: new Date().toISOString(),
  };
  const table = Object.entries(out).map(([k, v]) => `gpu.${k.padEnd(24)} ${v}`).join('\n');
  resultEl.textContent =
    `${table}\n\nDifferences: ours bans the stop ids, web-llm ignore_eos; ours runs in a worker and samples in JS, ` +
    `web-llm on the main thread with its own sampling; prompts rendered by each side's template.\n\n` +
    `For bench/results.json (section "gpu"):\n${JSON.stringify({ gpu: out }, null, 2)}`;
  console.log(`[bench/gpu] ours/web-llm decode ratio ${out.ratioOursOverWebllm} (${out.oursDecodeTokS} vs ${out.webllmDecodeTokS} tok/s)`);
  console.table(out);
}

const progress: Record<string, string> = {};
function setProgress(who: string, text: string): void {
  progress[who] = text;
  resultEl.textContent = Object.entries(progress).map(([k, v]) => `${k}: ${v}`).join('\n');
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const round3 = (x: number) => Math.round(x * 1000) / 1000;

main().catch((e: unknown) => {
  const message = e instanceof Error ? e.message : String(e);
  log(`FAILED: ${message}`);
  resultEl.textContent = message;
  resultEl.className = 'error';
  console.error(e);
});
