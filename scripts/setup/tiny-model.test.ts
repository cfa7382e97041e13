import { AutoModelForCausalLM, DynamicCache, Tensor, env } from '@huggingface/transformers';
import type { PreTrainedModel } from '@huggingface/transformers';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { InferenceSession } from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLlamaSession, runLlamaStep } from '../onnx/ort-llama';
import { TINY_LLAMA_CONFIG, buildTinyModel, tinyLlamaWeights } from './tiny-model';

const V = TINY_LLAMA_CONFIG.vocab_size;
const TOL = 1e-4;
const PROMPT = [128000, 128006, 9125, 128007, 271, 2028, 374, 264, 1296, 128009, 100000, 13];

let dir: string;
let session: InferenceSession;

beforeAll(async () => {
  // A name transformers.js accepts as a model id (letters, digits, '-', '.', no '--').
  dir = await mkdtemp(join(tmpdir(), 'tinyllama-'));
  const t0 = performance.now();
  await buildTinyModel(dir, { tokenizerDir: join(dir, 'no-tokenizer-here') });
  console.log(`buildTinyModel: ${Math.round(performance.now() - t0)} ms, model.onnx ${(await stat(join(dir, 'onnx/model.onnx'))).size} bytes`);
  session = await openLlamaSession(join(dir, 'onnx/model.onnx'));
});

afterAll(async () => {
  await session?.release();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function argmax(row: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i]! > row[best]!) best = i;
  return best;
}

function top1Prob(row: ArrayLike<number>): number {
  const m = row[argmax(row)]!;
  let z = 0;
  for (let i = 0; i < row.length; i++) z += Math.exp(row[i]! - m);
  return 1 / z;
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

describe('buildTinyModel', () => {
  it('writes config.json and generation_config.json as transformers.js reads them', async () => {
    const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));
    expect(config).toMatchObject({
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      vocab_size: 128256,
      hidden_size: 64,
      intermediate_size: 192,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      head_dim: 16,
      rope_theta: 500000,
      rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 },
      max_position_embeddings: 131072,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: true,
      bos_token_id: 128000,
      eos_token_id: [128001, 128008, 128009],
      'transformers.js_config': { dtype: 'fp32' },
    });
    const gen = JSON.parse(await readFile(join(dir, 'generation_config.json'), 'utf8'));
    expect(gen).toEqual({ bos_token_id: 128000, eos_token_id: [128001, 128008, 128009], do_sample: true, temperature: 0.6, top_p: 0.9 });
  });

  it('stores the tied embedding once (file about the size of one vocab×hidden matrix)', async () => {
    const size = (await stat(join(dir, 'onnx/model.onnx'))).size;
    const embedBytes = V * 64 * 4;
    expect(size).toBeGreaterThan(embedBytes);
    expect(size).toBeLessThan(embedBytes * 1.1);
  });

  it('is deterministic: same seed, same weights; other seed, other weights', () => {
    const a = tinyLlamaWeights();
    const b = tinyLlamaWeights();
    const c = tinyLlamaWeights(1);
    const name = 'model.layers.1.mlp.down_proj.weight';
    expect(b[name]).toEqual(a[name]);
    expect(c[name]).not.toEqual(a[name]);
  });

  it('is idempotent via its stamp and rebuilds when the stamp is stale', async () => {
    const model = join(dir, 'onnx/model.onnx');
    const before = (await stat(model)).mtimeMs;
    await buildTinyModel(dir, { tokenizerDir: join(dir, 'none') });
    expect((await stat(model)).mtimeMs).toBe(before);

    await writeFile(join(dir, '.tiny-model.stamp'), 'stale');
    await buildTinyModel(dir, { tokenizerDir: join(dir, 'none') });
    expect((await stat(model)).mtimeMs).toBeGreaterThan(before);
  });

  it('copies tokenizer files when the tokenizer dir exists', async () => {
    const tokDir = join(dir, 'tok');
    await mkdir(tokDir, { recursive: true });
    await writeFile(join(tokDir, 'tokenizer.json'), '{"model":{}}');
    await writeFile(join(tokDir, 'tokenizer_config.json'), '{"bos_token":"<|begin_of_text|>"}');
    await buildTinyModel(dir, { tokenizerDir: tokDir });
    expect(await readFile(join(dir, 'tokenizer.json'), 'utf8')).toBe('{"model":{}}');
    expect(await readFile(join(dir, 'tokenizer_config.json'), 'utf8')).toBe('{"bos_token":"<|begin_of_text|>"}');
    await rm(join(dir, 'tokenizer.json'));
    await rm(join(dir, 'tokenizer_config.json'));
  });

  it('has varied, non-degenerate logits', async () => {
    const prompts = [PROMPT, [128000, 42], [128000, 43], [9, 8, 7, 6, 13], [1, 2, 3, 6, 13]];
    const stats = [];
    for (const ids of prompts) {
      const { logits } = await runLlamaStep(session, TINY_LLAMA_CONFIG, { ids: [ids] });
      const last = logits.subarray((ids.length - 1) * V);
      stats.push({ argmax: argmax(last), p: top1Prob(last) });
    }
    expect(new Set(stats.map((s) => s.argmax)).size).toBe(prompts.length);
    for (const s of stats) {
      expect(s.p).toBeGreaterThan(1e-3);
      expect(s.p).toBeLessThan(0.9);
    }
  });
});

describe('transformers.js 4.3.1 loads the tiny model', () => {
  let model: PreTrainedModel;
  beforeAll(async () => {
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = dirname(dir);
    model = await AutoModelForCausalLM.from_pretrained(basename(dir), { device: 'cpu', dtype: 'fp32', local_files_only: true });
  });
  afterAll(async () => {
    await model?.dispose();
  });

  const ids = (xs: readonly number[]): Tensor => new Tensor('int64', BigInt64Array.from(xs.map(BigInt)), [1, xs.length]);
  const ones = (n: number): Tensor => new Tensor('int64', new BigInt64Array(n).fill(1n), [1, n]);
  /** Renames a forward's `present.N.*` outputs to the `past_key_values.N.*` inputs of the next call. */
  const toCache = (out: Record<string, Tensor>): DynamicCache => {
    const entries: Record<string, Tensor> = {};
    for (const [k, v] of Object.entries(out)) if (k.startsWith('present.')) entries[k.replace('present.', 'past_key_values.')] = v;
    return new DynamicCache(entries);
  };

  it('(e) forward with its own empty past gives the onnxruntime-node logits', async () => {
    const direct = await runLlamaStep(session, TINY_LLAMA_CONFIG, { ids: [PROMPT] });
    // No position_ids, no past_key_values: transformers.js derives positions from the mask and builds a 0-length cache.
    const out = (await model.forward({ input_ids: ids(PROMPT), attention_mask: ones(PROMPT.length) })) as Record<string, Tensor>;
    expect(out['logits']!.dims).toEqual([1, PROMPT.length, V]);
    expect(out['present.1.value']!.dims).toEqual([1, 2, PROMPT.length, 16]);
    expect(maxAbsDiff(out['logits']!.data as Float32Array, direct.logits)).toBeLessThan(TOL);
  });

  it('(e) forward with a DynamicCache of the presents continues exactly', async () => {
    const split = 7;
    const direct = await runLlamaStep(session, TINY_LLAMA_CONFIG, { ids: [PROMPT] });
    let out = (await model.forward({ input_ids: ids(PROMPT.slice(0, split)), attention_mask: ones(split) })) as Record<string, Tensor>;
    const cache = toCache(out);
    expect(cache.get_seq_length()).toBe(split);
    for (let t = split; t < PROMPT.length; t++) {
      // attention_mask spans past + new; position_ids come from it (the last new column's cumsum).
      out = (await model.forward({ input_ids: ids([PROMPT[t]!]), attention_mask: ones(t + 1), past_key_values: cache })) as Record<string, Tensor>;
      cache.update(toCache(out));
      expect(cache.get_seq_length()).toBe(t + 1);
      expect(maxAbsDiff(out['logits']!.data as Float32Array, direct.logits.subarray(t * V, (t + 1) * V))).toBeLessThan(TOL);
    }
    await cache.dispose();
  });

  it('(e) forward with num_logits_to_keep = 1 returns only the last position', async () => {
    const direct = await runLlamaStep(session, TINY_LLAMA_CONFIG, { ids: [PROMPT] });
    const out = (await model.forward({
      input_ids: ids(PROMPT),
      attention_mask: ones(PROMPT.length),
      num_logits_to_keep: new Tensor('int64', BigInt64Array.of(1n), []),
    })) as Record<string, Tensor>;
    expect(out['logits']!.dims).toEqual([1, 1, V]);
    expect(out['present.0.key']!.dims).toEqual([1, 2, PROMPT.length, 16]);
    expect(maxAbsDiff(out['logits']!.data as Float32Array, direct.logits.subarray((PROMPT.length - 1) * V))).toBeLessThan(TOL);
  });

  it('(e) greedy generate() follows the argmax of the direct run', async () => {
    const result = (await model.generate({
      inputs: ids(PROMPT),
      attention_mask: ones(PROMPT.length),
      max_new_tokens: 3,
      do_sample: false,
      return_dict_in_generate: true,
    } as Record<string, unknown>)) as { sequences: Tensor; past_key_values: DynamicCache };
    const generated = Array.from(result.sequences.data as BigInt64Array, Number).slice(PROMPT.length);
    const expected: number[] = [];
    let seq = [...PROMPT];
    for (let i = 0; i < 3; i++) {
      const { logits } = await runLlamaStep(session, TINY_LLAMA_CONFIG, { ids: [seq] });
      const next = argmax(logits.subarray((seq.length - 1) * V));
      expected.push(next);
      seq = [...seq, next];
    }
    expect(generated).toEqual(expected);
    // The returned cache covers prompt + all but the last generated token.
    expect(result.past_key_values.get_seq_length()).toBe(PROMPT.length + 2);
    await result.past_key_values.dispose();
  });
});
