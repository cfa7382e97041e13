import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InferenceSession } from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeEngine } from '../../worker/create-node-engine';
import { parseEmitted } from '../../src/format/parse';
import { renderIds } from '../../src/format/render';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import type { Message } from '../../src/format/types';
import { BUILTIN_TOOLS } from '../micro-llama/dialogues';
import { MICRO_MODEL_ID, microModelEntry } from '../micro-llama/evaluate';
import { openLlamaSession, runLlamaStep } from '../onnx/ort-llama';
import { referenceLlamaForward } from '../onnx/reference-llama';
import { FROZEN_ROWS_BELOW, frozenSign } from './frozen-rows';
import { buildMicroModel, DEFAULT_MICRO_MODEL_DIR, expandMicroArtifact, halfToFloat, hasFrozenRows, readMicroArtifact, type MicroArtifact } from './micro-model';

const tokenizer = loadTokenizer();
const OPTIONS = { builtinTools: [...BUILTIN_TOOLS], date: '2026-08-11' };
const QUESTION = 'What is the population of Oslo?';
const PROMPT = renderIds({ ...OPTIONS, messages: [{ role: 'user', content: QUESTION }] }, tokenizer);

let dir: string;
let artifact: MicroArtifact;
let session: InferenceSession;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'microllama-'));
  const t0 = performance.now();
  await buildMicroModel(dir, { artifactDir: DEFAULT_MICRO_MODEL_DIR, tokenizerDir: join(dir, 'no-tokenizer-here') });
  console.log(`buildMicroModel: ${Math.round(performance.now() - t0)} ms, model.onnx ${(await stat(join(dir, 'onnx/model.onnx'))).size} bytes`);
  artifact = await readMicroArtifact();
  session = await openLlamaSession(join(dir, 'onnx/model.onnx'));
});

/**
 * The row the committed artifact must expand an id to when the corpus gave it none, read from the manifest's own
 * tensors: zero (format /1, and special ids in every format), or scale × sign(id, d) in dimensions [offset, offset + dims).
 */
async function rowsWithoutLearned(): Promise<(id: number) => number[]> {
  const h = artifact.manifest.config.hidden_size;
  if (!hasFrozenRows(artifact.manifest.format)) return () => new Array<number>(h).fill(0);
  const bin = await readFile(join(DEFAULT_MICRO_MODEL_DIR, 'weights.bin'));
  const at = (name: string) => artifact.manifest.tensors.find((t) => t.name === name);
  const scale = halfToFloat(bin.readUInt16LE(at('model.embed_tokens.frozen_scale')!.offset));
  const dims = at('model.embed_tokens.frozen_dims') ? bin.readInt32LE(at('model.embed_tokens.frozen_dims')!.offset) : h;
  const offset = at('model.embed_tokens.frozen_offset') ? bin.readInt32LE(at('model.embed_tokens.frozen_offset')!.offset) : 0;
  return (id) => {
    const row = new Array<number>(h).fill(0);
    if (id < FROZEN_ROWS_BELOW) for (let d = 0; d < dims; d++) row[offset + d] = scale * frozenSign(id, d);
    return row;
  };
}

afterAll(async () => {
  await session?.release();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('halfToFloat', () => {
  it.each([
    [0x3c00, 1], [0xc000, -2], [0x3555, 0.333251953125], [0x7bff, 65504], [0x0001, 2 ** -24], [0x0400, 2 ** -14],
    [0x7c00, Infinity], [0xfc00, -Infinity], [0x0000, 0],
  ])('%i → %d', (h, expected) => {
    expect(halfToFloat(h)).toBe(expected);
  });
  it('reads NaN and -0', () => {
    expect(halfToFloat(0x7e00)).toBeNaN();
    expect(Object.is(halfToFloat(0x8000), -0)).toBe(true);
  });
});

describe('the committed micro-llama artifact', () => {
  it('stays small: weights.bin and manifest.json under 8 MB', async () => {
    const bytes = (await stat(join(DEFAULT_MICRO_MODEL_DIR, 'weights.bin'))).size + (await stat(join(DEFAULT_MICRO_MODEL_DIR, 'manifest.json'))).size;
    expect(bytes).toBeLessThan(8 * 1024 * 1024);
  });

  it('describes itself: config, tensors, corpus and training settings, the accuracy table', () => {
    const m = artifact.manifest;
    expect(m.config).toMatchObject({ vocab_size: 128256, rope_scaling: null, tie_word_embeddings: true });
    expect(m.corpus).toMatchObject({ generator: 'scripts/micro-llama/corpus.ts' });
    expect(m.training).toMatchObject({ loss_curve: expect.any(Array) });
    expect(m.evaluation).toMatchObject({ inDistribution: expect.any(Object), heldOut: expect.any(Object) });
    expect(artifact.usedIds.length).toBeGreaterThan(1000);
    expect(artifact.usedIds.length).toBeLessThan(10_000);
  });

  it('has rows for the structure\'s special ids, and zero or frozen rows (by its format) for ids the corpus never used', async () => {
    const used = new Set(artifact.usedIds);
    for (const id of [128000, 128006, 128007, 128008, 128009, 128010]) expect(used.has(id)).toBe(true);
    const embed = artifact.weights['model.embed_tokens.weight']!;
    const H = artifact.manifest.config.hidden_size;
    const unused = [0, 1001, 50_000, 128001, 128255].filter((id) => !used.has(id));
    expect(unused.length).toBeGreaterThanOrEqual(3);
    const rowWithoutLearned = await rowsWithoutLearned();
    for (const id of unused) expect([...embed.subarray(id * H, (id + 1) * H)]).toEqual(rowWithoutLearned(id));
  });
});

describe('buildMicroModel', () => {
  it('writes config.json and generation_config.json as transformers.js reads them', async () => {
    const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));
    expect(config).toMatchObject({
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      ...artifact.manifest.config,
      bos_token_id: 128000,
      eos_token_id: [128001, 128008, 128009],
      'transformers.js_config': { dtype: 'fp32' },
    });
    const gen = JSON.parse(await readFile(join(dir, 'generation_config.json'), 'utf8'));
    expect(gen).toMatchObject({ eos_token_id: [128001, 128008, 128009] });
  });

  it('is idempotent via its stamp and rebuilds when the stamp is stale', async () => {
    const model = join(dir, 'onnx/model.onnx');
    const before = (await stat(model)).mtimeMs;
    await buildMicroModel(dir, { artifactDir: DEFAULT_MICRO_MODEL_DIR, tokenizerDir: join(dir, 'none') });
    expect((await stat(model)).mtimeMs).toBe(before);

    await writeFile(join(dir, '.micro-model.stamp'), 'stale');
    await buildMicroModel(dir, { artifactDir: DEFAULT_MICRO_MODEL_DIR, tokenizerDir: join(dir, 'none') });
    expect((await stat(model)).mtimeMs).toBeGreaterThan(before);
  });

  it('gives the logits of the reference forward, and exactly 0 for special ids without a row', async () => {
    const config = artifact.manifest.config;
    const V = config.vocab_size;
    const { logits } = await runLlamaStep(session, config, { ids: [PROMPT] });
    const checked = [0, 5, Math.floor(PROMPT.length / 2), PROMPT.length - 1];
    const reference = referenceLlamaForward(config, artifact.weights, PROMPT, undefined, checked);
    const used = new Set(artifact.usedIds);
    for (const p of checked) {
      const got = logits.subarray(p * V, (p + 1) * V);
      const want = reference.subarray(p * V, (p + 1) * V);
      let maxDiff = 0;
      for (let i = 0; i < V; i++) maxDiff = Math.max(maxDiff, Math.abs(got[i]! - want[i]!));
      expect(maxDiff).toBeLessThan(1e-3);
      for (const id of [128_001, 128_255]) if (!used.has(id)) expect(got[id]).toBe(0);
      if (!hasFrozenRows(artifact.manifest.format) && !used.has(1001)) expect(got[1001]).toBe(0);
    }
  });
});

describe('the micro model through createNodeEngine', () => {
  it('greedy, unforced: searches for an in-distribution question, reads the result and answers with it', async () => {
    await buildMicroModel();
    const engine = createNodeEngine([microModelEntry()]);
    await engine.load(MICRO_MODEL_ID);
    try {
      const first = await engine.generate({ tokens: PROMPT, sampling: { temperature: 0 }, maxTokens: 64 });
      const firstText = tokenizer.decode(first.tokens);
      expect(firstText).toBe('<|python_tag|>brave_search.call(query="population of Oslo")');
      expect(first.stop).toBe('eom');
      expect(parseEmitted(first.tokens, 'eom', tokenizer).toolCalls).toEqual([{ kind: 'builtin', name: 'brave_search', arguments: { query: 'population of Oslo' } }]);

      const result = {
        query: 'population of Oslo',
        results: [{ title: 'Oslo population 2024', url: 'https://worldpopulationreview.com/cities/norway/oslo', description: 'The population of Oslo, Norway is 634,293 according to the latest estimate.' }],
      };
      const messages: Message[] = [
        { role: 'user', content: QUESTION },
        { role: 'assistant', content: '', raw: firstText, ids: first.tokens, stop: 'eom' },
        { role: 'ipython', content: result },
      ];
      const second = await engine.generate({ tokens: renderIds({ ...OPTIONS, messages }, tokenizer), sampling: { temperature: 0 }, maxTokens: 64 });
      expect(second.stop).toBe('eot');
      expect(tokenizer.decode(second.tokens)).toContain('634,293');
      expect(second.stats.reusedTokens).toBe(PROMPT.length + first.tokens.length);
    } finally {
      await engine.unload();
    }
  });
});

describe('format micro-llama-fp16/2 (frozen rows)', () => {
  /** The committed artifact as format /2 with a frozen scale of 0.5 and, when given, `dims` frozen dimensions (format /3 with an `offset`). */
  async function frozenVariant(dims?: number, offset?: number) {
    const base = await readFile(join(DEFAULT_MICRO_MODEL_DIR, 'weights.bin'));
    const m = artifact.manifest;
    const tensors = m.tensors.filter((t) => !t.name.startsWith('model.embed_tokens.frozen_'));
    const pad = (64 - (base.length % 64)) % 64;
    const extra = new Uint8Array(pad + 2 + (dims === undefined ? 0 : 64 - 2 + 4) + (offset === undefined ? 0 : 64 - 4 + 4));
    extra.set([0x00, 0x38], pad); // float16 0.5
    const added = [{ name: 'model.embed_tokens.frozen_scale', dtype: 'float16' as const, shape: [1], offset: base.length + pad, bytes: 2 }];
    if (dims !== undefined) {
      new DataView(extra.buffer).setInt32(pad + 64, dims, true);
      added.push({ name: 'model.embed_tokens.frozen_dims', dtype: 'int32' as const, shape: [1], offset: base.length + pad + 64, bytes: 4 } as never);
    }
    if (offset !== undefined) {
      new DataView(extra.buffer).setInt32(pad + 128, offset, true);
      added.push({ name: 'model.embed_tokens.frozen_offset', dtype: 'int32' as const, shape: [1], offset: base.length + pad + 128, bytes: 4 } as never);
    }
    const bin = new Uint8Array(base.length + extra.length);
    bin.set(base);
    bin.set(extra, base.length);
    const manifest = {
      ...m, format: offset === undefined ? 'micro-llama-fp16/2' : 'micro-llama-fp16/3',
      weights: { ...m.weights, bytes: bin.length, sha256: createHash('sha256').update(bin).digest('hex') },
      tensors: [...tensors, ...added],
    };
    return { manifest, bin, tensors };
  }
  const H = () => artifact.manifest.config.hidden_size;
  const unusedId = () => [0, 1001, 50_000, 127_999].find((id) => !new Set(artifact.usedIds).has(id))!;

  it('expands every ordinary id without a learned row to scale × its seeded signs, special tokens to zero', async () => {
    const { manifest, bin, tensors } = await frozenVariant();
    const expanded = expandMicroArtifact(manifest, bin);
    const h = H();
    const embed = expanded.weights['model.embed_tokens.weight']!;
    const unused = unusedId();
    expect([...embed.subarray(unused * h, (unused + 1) * h)]).toEqual(Array.from({ length: h }, (_, d) => 0.5 * frozenSign(unused, d)));
    const learned = artifact.usedIds[10]!;
    expect(embed.subarray(learned * h, (learned + 1) * h)).toEqual(artifact.weights['model.embed_tokens.weight']!.subarray(learned * h, (learned + 1) * h));
    expect(embed.subarray(128_255 * h, 128_256 * h).every((x) => x === 0)).toBe(true);
    expect(expanded.weights['model.embed_tokens.frozen_scale']).toBeUndefined();
    expect(() => expandMicroArtifact({ ...manifest, tensors }, bin)).toThrow(/no tensor model.embed_tokens.frozen_scale/);
  });

  it('fills only the stored number of leading dimensions, and refuses a number outside 1..hidden', async () => {
    const { manifest, bin } = await frozenVariant(64);
    const h = H();
    const embed = expandMicroArtifact(manifest, bin).weights['model.embed_tokens.weight']!;
    const unused = unusedId();
    expect([...embed.subarray(unused * h, (unused + 1) * h)]).toEqual(Array.from({ length: h }, (_, d) => (d < 64 ? 0.5 * frozenSign(unused, d) : 0)));
    for (const bad of [0, h + 1]) {
      const v = await frozenVariant(bad);
      expect(() => expandMicroArtifact(v.manifest, v.bin)).toThrow(/frozen_dims must be one int32/);
    }
  });

  it('format /3 fills dimensions [offset, offset + dims) with the signs of dimensions 0.., and refuses an offset that does not fit', async () => {
    const { manifest, bin } = await frozenVariant(32, 64);
    const h = H();
    const expanded = expandMicroArtifact(manifest, bin);
    const embed = expanded.weights['model.embed_tokens.weight']!;
    const unused = unusedId();
    expect([...embed.subarray(unused * h, (unused + 1) * h)]).toEqual(Array.from({ length: h }, (_, d) => (d >= 64 && d < 96 ? 0.5 * frozenSign(unused, d - 64) : 0)));
    expect(expanded.weights['model.embed_tokens.frozen_offset']).toBeUndefined();
    for (const bad of [-1, h - 31]) {
      const v = await frozenVariant(32, bad);
      expect(() => expandMicroArtifact(v.manifest, v.bin)).toThrow(/frozen_offset must be one int32/);
    }
    const noDims = { ...manifest, tensors: manifest.tensors.filter((t) => t.name !== 'model.embed_tokens.frozen_dims') };
    expect(() => expandMicroArtifact(noDims, bin)).toThrow(/no tensor model.embed_tokens.frozen_dims/);
    const asTwo = { ...manifest, format: 'micro-llama-fp16/2' };
    expect(() => expandMicroArtifact(asTwo, bin)).toThrow(/frozen_offset belongs to format micro-llama-fp16\/3/);
  });
});
