// Bench page (served by vite, cross-origin isolated): the peers on WASM in one page, on the same micro
// weights — our engine (its onnx backend on onnxruntime-web), transformers.js's own generate() (the same
// runtime, its forward and sampler) and wllama (llama.cpp compiled to WASM) on the F32 GGUF of the
// same weights. Each runs the shared workload (bench/peers-workloads.ts).
import { AutoModelForCausalLM, env, type PreTrainedModel } from '@huggingface/transformers';
import { Wllama } from '@wllama/wllama';
import wllamaWasm from '@wllama/wllama/esm/wasm/wllama.wasm?url';
import { MODELS } from '../../src/engine/models';
import { fetchTokenizer, tokenizerUrl } from '../../src/format/tokenizer/fetch-tokenizer';
import type { TextTokenizer } from '../../src/format/types';
import { createOnnxBackend } from '../../worker/backends/onnx-backend';
import { Engine } from '../../worker/engine';
import { BANNED, benchEntry, benchPrompt, engineRun, microModel, NEW_TOKENS, transformersRun, type RunFigures } from '../peers-workloads';

const here = (p: string) => new URL(p, location.href).href;

declare global {
  interface Window {
    peers: {
      /** Loads all three with `threads` WASM threads (1, or the page's cores when isolated). */
      load(threads: number): Promise<{ isolated: boolean; threads: number; wllamaThreads: number; wllamaMultithread: boolean; cores: number }>;
      ours(context: number): Promise<RunFigures>;
      transformers(context: number): Promise<RunFigures>;
      wllama(context: number): Promise<RunFigures>;
      unload(): Promise<void>;
    };
    ready: boolean;
  }
}

let engine: Engine | null = null;
let tokenizer: TextTokenizer | null = null;
let model: PreTrainedModel | null = null;
let llama: Wllama | null = null;

window.peers = {
  async load(threads) {
    const micro = microModel(MODELS);
    const entry = benchEntry(micro);
    const wasm = (env.backends.onnx as { wasm: { numThreads?: number } }).wasm;
    tokenizer = await fetchTokenizer(tokenizerUrl(here('/models/')));
    engine = new Engine({
      models: [entry],
      capabilities: async () => ({ webgpu: false, shaderF16: false, adapter: null, limits: null }),
      // The thread count is fixed when the page's first session starts: transformers.js's session below shares it.
      createBackend: (ctx) => createOnnxBackend(ctx, { localModelPath: here('/models/'), wasmBase: here('/ort/'), allowRemote: false, wasmThreads: threads }),
    });
    await engine.load(entry.id, { device: 'wasm' });
    model = await AutoModelForCausalLM.from_pretrained(micro.path, { dtype: 'fp32', device: 'wasm', local_files_only: true });
    llama = new Wllama({ default: wllamaWasm }, { suppressNativeLog: true });
    const gguf = await (await fetch(here(`/models/${micro.path}/gguf/${micro.path}-f32.gguf`))).blob();
    // F32 attention and cache, as our runtime computes: llama.cpp's defaults (flash attention through F16,
    // an F16 KV cache) move logits by ~1e-2, enough to flip a near-tie at 1,000 tokens of context.
    await llama.loadModel([gguf], { n_threads: threads, n_gpu_layers: 0, n_ctx: 2048, n_batch: 512, flash_attn: false, cache_type_k: 'f32', cache_type_v: 'f32' });
    return { isolated: crossOriginIsolated, threads: wasm.numThreads ?? 0, wllamaThreads: llama.getNumThreads(), wllamaMultithread: llama.isMultithread(), cores: navigator.hardwareConcurrency };
  },

  ours: (context) => engineRun(engine!, benchPrompt(tokenizer!, context).ids),
  transformers: (context) => transformersRun(model!, benchPrompt(tokenizer!, context).ids),

  async wllama(context) {
    const { text, ids } = benchPrompt(tokenizer!, context);
    // wllama takes the prompt as text (an id array crashes its glue layer); llama.cpp adds <|begin_of_text|>.
    const r = (await llama!.createCompletion({
      prompt: text,
      max_tokens: NEW_TOKENS,
      temperature: 0,
      temp: 0,
      top_k: 1,
      ignore_eos: true,
      cache_prompt: false,
      logprobs: 1,
      logit_bias: BANNED.map((token) => [token, false]),
    } as never)) as unknown as { choices: Array<{ logprobs: { content: Array<{ id: number }> } | null }>; usage: { prompt_tokens: number }; timings?: { predicted_per_second: number; prompt_per_second: number } };
    if (!r.timings) throw new Error('wllama gave no timings');
    if (r.usage.prompt_tokens !== ids.length) throw new Error(`wllama tokenized the prompt into ${r.usage.prompt_tokens} ids, ours into ${ids.length}`);
    // Its own timings (llama.cpp's), the same split as ours: prompt evaluation, then the generated tokens.
    return { decodeTokS: r.timings.predicted_per_second, prefillTokS: r.timings.prompt_per_second, ids: (r.choices[0]?.logprobs?.content ?? []).map((c) => c.id) };
  },

  async unload() {
    await engine?.unload();
    await model?.dispose();
    await llama?.exit();
  },
};

env.allowLocalModels = true;
env.localModelPath = here('/models/');
env.allowRemoteModels = false;
window.ready = true;
