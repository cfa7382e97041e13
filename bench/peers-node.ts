/**
 * The peers in Node on the same micro weights and onnxruntime-node: our engine (createNodeEngine: our
 * forward and sampler) and transformers.js's own `generate()` (its forward, logits processors and
 * greedy sampler). Both decode NEW_TOKENS greedy tokens with every special id but the python tag banned
 * (our engine bans structural ids itself; transformers.js gets them as bad_words_ids), so the ids must
 * agree token for token.
 */
import { AutoModelForCausalLM, env, type PreTrainedModel } from '@huggingface/transformers';
import { MODELS } from '../src/engine/models';
import { loadTokenizer } from '../src/format/tokenizer/load-node';
import { createNodeEngine } from '../worker/create-node-engine';
import type { Engine } from '../worker/engine';
import { benchEntry, benchPrompt, engineRun, microModel, transformersRun, type RunFigures } from './peers-workloads';

export interface NodePeers {
  ours(context: number): Promise<RunFigures>;
  /** A new engine: loaded, then its first generation at once (the load's leftovers, if any, slow it). */
  oursRightAfterLoad(context: number): Promise<RunFigures>;
  transformers(context: number): Promise<RunFigures>;
  close(): Promise<void>;
}

export async function nodePeers(): Promise<NodePeers> {
  const micro = microModel(MODELS);
  const entry = benchEntry(micro);
  const engine: Engine = createNodeEngine([entry]);
  await engine.load(entry.id);
  env.allowLocalModels = true;
  env.localModelPath = new URL('../models/', import.meta.url).pathname;
  env.allowRemoteModels = false;
  const model: PreTrainedModel = await AutoModelForCausalLM.from_pretrained(micro.path, { dtype: 'fp32', device: 'cpu', local_files_only: true });
  return {
    ours: (context) => engineRun(engine, benchPrompt(loadTokenizer(), context).ids),
    oursRightAfterLoad: async (context) => {
      const fresh = createNodeEngine([entry]);
      await fresh.load(entry.id);
      try {
        return await engineRun(fresh, benchPrompt(loadTokenizer(), context).ids);
      } finally {
        await fresh.unload();
      }
    },
    transformers: (context) => transformersRun(model, benchPrompt(loadTokenizer(), context).ids),
    close: async () => {
      await engine.unload();
      await model.dispose();
    },
  };
}
