/**
 * One 4,000-token prefill in a process of its own, for its peak memory (`maxRSS` covers everything
 * onnxruntime allocated natively too): `ours` — our engine on the micro model (chunked prefill);
 * `unchunked` — transformers.js's forward on the whole prompt at once, logits of the last position only,
 * which is what our engine did before chunking. Prints {"baselineMiB", "peakMiB"} as JSON. Run by the
 * peers section.
 */
import { AutoModelForCausalLM, env, Tensor } from '@huggingface/transformers';
import { MODELS } from '../src/engine/models';
import { loadTokenizer } from '../src/format/tokenizer/load-node';
import { createNodeEngine } from '../worker/create-node-engine';
import { benchEntry, benchPrompt } from './peers-workloads';

const PROMPT_TOKENS = 4000;
const MiB = (kb: number) => Math.round(kb / 1024);

async function main(who: string): Promise<void> {
  const micro = MODELS.find((m) => m.demo)!;
  const prompt = benchPrompt(loadTokenizer(), PROMPT_TOKENS).ids;
  let run: () => Promise<void>;
  if (who === 'ours') {
    const entry = benchEntry(micro);
    const engine = createNodeEngine([entry]);
    await engine.load(entry.id);
    run = async () => void (await engine.generate({ tokens: prompt, maxTokens: 1, sampling: { temperature: 0 } }));
  } else if (who === 'unchunked') {
    env.allowLocalModels = true;
    env.localModelPath = new URL('../models/', import.meta.url).pathname;
    env.allowRemoteModels = false;
    const model = await AutoModelForCausalLM.from_pretrained(micro.path!, { dtype: 'fp32', device: 'cpu', local_files_only: true });
    run = async () => {
      const ids = new Tensor('int64', BigInt64Array.from(prompt, BigInt), [1, prompt.length]);
      const mask = new Tensor('int64', new BigInt64Array(prompt.length).fill(1n), [1, prompt.length]);
      await model.forward({ input_ids: ids, attention_mask: mask, num_logits_to_keep: new Tensor('int64', BigInt64Array.of(1n), []) });
    };
  } else throw new Error(`peers-memory: unknown runner ${who}`);
  const baselineMiB = MiB(process.resourceUsage().maxRSS);
  await run();
  process.stdout.write(`${JSON.stringify({ baselineMiB, peakMiB: MiB(process.resourceUsage().maxRSS), promptTokens: prompt.length })}\n`);
}

main(process.argv[2] ?? '').then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
