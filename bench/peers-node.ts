/**
 * The peers in Node on the same micro weights and onnxruntime-node: our engine (createNodeEngine: our
 * forward and sampler) and transformers.js's own `generate()` (its forward, logits processors and
 * greedy sampler). Both decode NEW_TOKENS greedy tokens with every special id but the python tag banned
 * (our engine bans structural ids itself; transformers.js gets them as bad_words_ids), so the ids must
 * agree token for token.
 */
import { AutoModelForCausalLM, env, Tensor, type PreTrainedModel } from '@huggingface/transformers';
import { MODELS } from '../src/engine/models';
import { FIRST_SPECIAL_ID, PYTHON_TAG, VOCAB_SIZE } from '../src/format/special-tokens';
import { loadTokenizer } from '../src/format/tokenizer/load-node';
import { createNodeEngine } from '../worker/create-node-engine';
import type { Engine } from '../worker/engine';
import { benchEntry, benchPrompt, NEW_TOKENS, type RunFigures } from './peers-workloads';

const BANNED = Array.from({ length: VOCAB_SIZE - FIRST_SPECIAL_ID }, (_, i) => FIRST_SPECIAL_ID + i).filter((id) => id !== PYTHON_TAG);

export interface NodePeers {
  ours(context: number): Promise<RunFigures>;
  transformers(context: number): Promise<RunFigures>;
  close(): Promise<void>;
}

export async function nodePeers(): Promise<NodePeers> {
  const micro = MODELS.find((m) => m.demo);
  if (!micro) throw new Error('no demo (micro) model in models.json');
  const entry = benchEntry(micro);
  const engine: Engine = createNodeEngine([entry]);
  await engine.load(entry.id);
  env.allowLocalModels = true;
  env.localModelPath = new URL('../models/', import.meta.url).pathname;
  env.allowRemoteModels = false;
  const model: PreTrainedModel = await AutoModelForCausalLM.from_pretrained(micro.path!, { dtype: 'fp32', device: 'cpu', local_files_only: true });
  return {
    ours: (context) => ourRun(engine, context),
    transformers: (context) => transformersRun(model, context),
    close: async () => {
      await engine.unload();
      await model.dispose();
    },
  };
}

async function ourRun(engine: Engine, context: number): Promise<RunFigures> {
  const prompt = benchPrompt(loadTokenizer(), context).ids;
  const r = await engine.generate({ tokens: prompt, maxTokens: NEW_TOKENS, sampling: { temperature: 0 }, logitsProcessors: [{ type: 'ban', tokens: BANNED }] });
  await engine.generate({ tokens: [PYTHON_TAG], maxTokens: 1 }); // empties the cache: every run prefills its whole prompt
  return { decodeTokS: (r.stats.decodedTokens - 1) / (r.stats.decodeMs / 1000), prefillTokS: prompt.length / (r.stats.prefillMs / 1000), ids: r.tokens };
}

async function transformersRun(model: PreTrainedModel, context: number): Promise<RunFigures> {
  const prompt = benchPrompt(loadTokenizer(), context).ids;
  let started = 0;
  let first = 0;
  let puts = 0;
  // generate() calls put() once with the prompt, then once per new token.
  const streamer = { put: () => (++puts === 2 ? (first = performance.now()) : undefined), end: () => {} };
  started = performance.now();
  const out = (await model.generate({
    input_ids: new Tensor('int64', BigInt64Array.from(prompt, BigInt), [1, prompt.length]),
    max_new_tokens: NEW_TOKENS,
    min_new_tokens: NEW_TOKENS,
    do_sample: false,
    bad_words_ids: BANNED.map((id) => [id]),
    streamer,
  } as never)) as Tensor;
  const ended = performance.now();
  const ids = Array.from(out.data as BigInt64Array, Number).slice(prompt.length);
  return { decodeTokS: (NEW_TOKENS - 1) / ((ended - first) / 1000), prefillTokS: prompt.length / ((first - started) / 1000), ids };
}
