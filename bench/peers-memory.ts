/**
 * One 4,000-token prefill in a process of its own, for its peak memory (resident: it covers what
 * onnxruntime allocates natively too). The process's peak is reset after loading (Linux: writing 5 to
 * /proc/self/clear_refs resets VmHWM), so the load's own peak does not hide the prefill's: `ours` — our engine on the micro model (chunked prefill);
 * `unchunked` — transformers.js's forward on the whole prompt at once, logits of the last position only,
 * which is what our engine did before chunking. Prints {"baselineMiB", "peakMiB"} as JSON. Run by the
 * peers section.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { AutoModelForCausalLM, env, Tensor } from '@huggingface/transformers';
import { MODELS } from '../src/engine/models';
import { createNodeEngine } from '../worker/create-node-engine';
import { benchEntry, microModel } from './peers-workloads';

const MiB = (kb: number) => Math.round(kb / 1024);

/** A field of /proc/self/status, in kB (VmRSS: resident now; VmHWM: the peak since the last reset). */
function residentKb(field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
  if (!line) throw new Error(`no ${field} in /proc/self/status`);
  return Number(line.replace(/\D+/g, ''));
}

async function main(who: string, idsFile: string | undefined): Promise<void> {
  const micro = microModel(MODELS);
  // The engine holds no tokenizer (the page does): the prompt's ids come from the parent, so they are not counted here.
  if (!idsFile) throw new Error('peers-memory: pass the file holding the prompt ids');
  const prompt = JSON.parse(readFileSync(idsFile, 'utf8')) as number[];
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
    const model = await AutoModelForCausalLM.from_pretrained(micro.path, { dtype: 'fp32', device: 'cpu', local_files_only: true });
    run = async () => {
      const ids = new Tensor('int64', BigInt64Array.from(prompt, BigInt), [1, prompt.length]);
      const mask = new Tensor('int64', new BigInt64Array(prompt.length).fill(1n), [1, prompt.length]);
      await model.forward({ input_ids: ids, attention_mask: mask, num_logits_to_keep: new Tensor('int64', BigInt64Array.of(1n), []) });
    };
  } else throw new Error(`peers-memory: unknown runner ${who}`);
  writeFileSync('/proc/self/clear_refs', '5');
  const baselineMiB = MiB(residentKb('VmHWM'));
  await run();
  process.stdout.write(`${JSON.stringify({ baselineMiB, peakMiB: MiB(residentKb('VmHWM')), promptTokens: prompt.length })}\n`);
}

main(process.argv[2] ?? '', process.argv[3]).then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
