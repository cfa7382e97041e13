import { gguf, GGUFValueType } from '@huggingface/gguf';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EOM, EOT, PYTHON_TAG } from '../../src/format/special-tokens';
import { buildGgufModels, ggufPath } from '../setup/gguf-models';
import { halfToFloat, readMicroArtifact } from '../setup/micro-model';
import { DEFAULT_TOKENIZER_DIR, TINY_LLAMA_CONFIG } from '../setup/tiny-model';
import { ropeInvFreq } from '../onnx/rope';
import { permuteRotaryRows, ropeFreqFactors } from './llama-gguf';
import { TOKEN_TYPE_CONTROL, TOKEN_TYPE_NORMAL } from './tokenizer-gguf';

type Parsed = Awaited<ReturnType<typeof parse>>;
const parse = (path: string) => gguf(path, { allowLocalFile: true, typedMetadata: true });

/** A tensor's values as float32, read from the file at its recorded offset. */
function tensorValues(file: Buffer, parsed: Parsed, name: string): Float32Array {
  const info = parsed.tensorInfos.find((t) => t.name === name);
  if (!info) throw new Error(`no tensor ${name}`);
  const count = info.shape.reduce((a, b) => a * Number(b), 1);
  const start = Number(parsed.tensorDataOffset + info.offset);
  if (info.dtype === 0) return new Float32Array(file.buffer.slice(file.byteOffset + start, file.byteOffset + start + count * 4));
  const halves = new Uint16Array(file.buffer.slice(file.byteOffset + start, file.byteOffset + start + count * 2));
  return Float32Array.from(halves, halfToFloat);
}

/** Index of the first differing value (-1: identical), without vitest diffing millions of floats. */
function firstDifference(a: Float32Array, b: ArrayLike<number> | null | undefined): number {
  if (!b || a.length !== b.length) return -2;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i]) && a[i] !== b[i]) return i;
  return -1;
}

describe('permuteRotaryRows (llama.cpp LlamaModel.permute)', () => {
  it('interleaves each head’s two halves: row h·hd + 2j + s comes from row h·hd + s·hd/2 + j', () => {
    // 2 heads of width 4, 1 column: rows are their own indices.
    const w = Float32Array.from({ length: 8 }, (_, i) => i);
    expect([...permuteRotaryRows(w, 2, 1)]).toEqual([0, 2, 1, 3, 4, 6, 5, 7]);
  });

  it('moves whole rows', () => {
    const w = Float32Array.from({ length: 4 * 3 }, (_, i) => i);
    expect([...permuteRotaryRows(w, 1, 3)]).toEqual([0, 1, 2, 6, 7, 8, 3, 4, 5, 9, 10, 11]);
  });

  it('rejects heads of odd width', () => {
    expect(() => permuteRotaryRows(new Float32Array(6), 2, 1)).toThrow(/even width/);
  });
});

describe('ropeFreqFactors (Llama 3.1 scaling as rope_freqs)', () => {
  it('divides the unscaled frequencies into the scaled ones: 1 for high frequencies, factor 8 for the lowest', () => {
    const f = ropeFreqFactors(TINY_LLAMA_CONFIG)!;
    const plain = ropeInvFreq({ ...TINY_LLAMA_CONFIG, rope_scaling: null });
    const scaled = ropeInvFreq(TINY_LLAMA_CONFIG);
    expect(f.length).toBe(8);
    expect(f[0]).toBe(1);
    expect(f[7]).toBeCloseTo(8, 5);
    // Stored as float32: within its rounding of the float64 frequencies.
    f.forEach((v, i) => expect(Math.abs(plain[i]! / v - scaled[i]!) / scaled[i]!).toBeLessThan(1e-7));
    expect([...f].every((v, i) => i === 0 || v >= f[i - 1]!)).toBe(true);
  });

  it('is absent without scaling', () => {
    expect(ropeFreqFactors({ ...TINY_LLAMA_CONFIG, rope_scaling: null })).toBeNull();
  });
});

describe('the GGUF files setup writes', () => {
  const micro32 = ggufPath('micro-llama', 'F32');
  let parsed: Parsed;
  let file: Buffer;
  beforeAll(async () => {
    parsed = await parse(micro32);
    file = await readFile(micro32);
  });

  it('carry the llama metadata llama.cpp needs, rope base set explicitly', async () => {
    const { manifest } = await readMicroArtifact();
    const md = parsed.typedMetadata;
    expect(md['general.architecture']?.value).toBe('llama');
    expect(md['general.file_type']?.value).toBe(0);
    expect(md['llama.block_count']?.value).toBe(manifest.config.num_hidden_layers);
    expect(md['llama.embedding_length']?.value).toBe(manifest.config.hidden_size);
    expect(md['llama.feed_forward_length']?.value).toBe(manifest.config.intermediate_size);
    expect(md['llama.attention.head_count']?.value).toBe(manifest.config.num_attention_heads);
    expect(md['llama.attention.head_count_kv']?.value).toBe(manifest.config.num_key_value_heads);
    expect(md['llama.rope.dimension_count']?.value).toBe(manifest.config.head_dim);
    expect(md['llama.rope.freq_base']).toEqual({ type: GGUFValueType.FLOAT32, value: 500000 });
    expect(md['llama.context_length']?.value).toBe(1024);
    expect(md['llama.attention.layer_norm_rms_epsilon']?.value).toBeCloseTo(1e-5, 10);
  });

  it('carry the Llama 3.1 tokenizer: gpt2 / llama-bpe, every token, control types for specials, merges, the stop ids', async () => {
    const md = parsed.typedMetadata;
    const tokenizer = JSON.parse(await readFile(join(DEFAULT_TOKENIZER_DIR, 'tokenizer.json'), 'utf8')) as { model: { merges: unknown[]; vocab: Record<string, number> } };
    expect(md['tokenizer.ggml.model']?.value).toBe('gpt2');
    expect(md['tokenizer.ggml.pre']?.value).toBe('llama-bpe');
    const tokens = md['tokenizer.ggml.tokens']!.value as string[];
    const types = md['tokenizer.ggml.token_type']!.value as number[];
    expect(tokens.length).toBe(128256);
    expect(tokens[EOT]).toBe('<|eot_id|>');
    expect(tokens[EOM]).toBe('<|eom_id|>');
    expect(tokens[PYTHON_TAG]).toBe('<|python_tag|>');
    expect(tokens[tokenizer.model.vocab['Ġhello']!]).toBe('Ġhello');
    expect(types.slice(0, 128000).every((t) => t === TOKEN_TYPE_NORMAL)).toBe(true);
    expect(types.slice(128000).every((t) => t === TOKEN_TYPE_CONTROL)).toBe(true);
    expect((md['tokenizer.ggml.merges']!.value as string[]).length).toBe(tokenizer.model.merges.length);
    expect(md['tokenizer.ggml.bos_token_id']?.value).toBe(128000);
    expect(md['tokenizer.ggml.eos_token_id']?.value).toBe(128009);
    expect(md['tokenizer.ggml.eot_token_id']?.value).toBe(128009);
    expect(md['tokenizer.ggml.eom_token_id']?.value).toBe(128008);
  });

  it('hold the same weights as the ONNX model, Q and K permuted, the tied head left out', async () => {
    const { weights, manifest } = await readMicroArtifact();
    const { hidden_size: hidden, num_attention_heads: heads, num_key_value_heads: kvHeads } = manifest.config;
    expect(firstDifference(tensorValues(file, parsed, 'token_embd.weight'), weights['model.embed_tokens.weight'])).toBe(-1);
    // The permutation is per head, so it uses the artifact's own head counts (run 26: 4/2; run 33: 6/3).
    expect(firstDifference(tensorValues(file, parsed, 'blk.2.attn_q.weight'), permuteRotaryRows(weights['model.layers.2.self_attn.q_proj.weight']!, heads, hidden))).toBe(-1);
    expect(firstDifference(tensorValues(file, parsed, 'blk.2.attn_k.weight'), permuteRotaryRows(weights['model.layers.2.self_attn.k_proj.weight']!, kvHeads, hidden))).toBe(-1);
    expect(firstDifference(tensorValues(file, parsed, 'blk.2.attn_v.weight'), weights['model.layers.2.self_attn.v_proj.weight'])).toBe(-1);
    expect(firstDifference(tensorValues(file, parsed, 'blk.3.ffn_down.weight'), weights['model.layers.3.mlp.down_proj.weight'])).toBe(-1);
    expect(firstDifference(tensorValues(file, parsed, 'output_norm.weight'), weights['model.norm.weight'])).toBe(-1);
    const q = parsed.tensorInfos.find((t) => t.name === 'blk.0.attn_q.weight')!;
    expect(q.shape).toEqual([BigInt(hidden), BigInt(hidden)]);
    expect(parsed.tensorInfos.find((t) => t.name === 'blk.0.ffn_gate.weight')!.shape).toEqual([BigInt(hidden), BigInt(manifest.config.intermediate_size)]);
    expect(parsed.tensorInfos.some((t) => t.name === 'output.weight')).toBe(false);
    // The micro model has no RoPE scaling, so no rope_freqs.
    expect(parsed.tensorInfos.some((t) => t.name === 'rope_freqs.weight')).toBe(false);
    expect(parsed.tensorInfos.every((t) => (Number(parsed.tensorDataOffset + t.offset)) % 32 === 0)).toBe(true);
  });

  it('F16 files keep 1-D tensors in F32; the micro model’s fp16 weights are exact in F16', async () => {
    const path = ggufPath('micro-llama', 'F16');
    const p16 = await parse(path);
    const f16 = await readFile(path);
    expect(p16.typedMetadata['general.file_type']?.value).toBe(1);
    for (const t of p16.tensorInfos) expect(t.dtype).toBe(t.n_dims === 1 ? 0 : 1);
    const { weights } = await readMicroArtifact();
    expect(firstDifference(tensorValues(f16, p16, 'blk.1.ffn_up.weight'), weights['model.layers.1.mlp.up_proj.weight'])).toBe(-1);
  });

  it('the tiny model carries Llama 3.1 RoPE scaling as rope_freqs.weight [head_dim / 2]', async () => {
    const p = await parse(ggufPath('tiny-llama', 'F32'));
    const f = await readFile(ggufPath('tiny-llama', 'F32'));
    const info = p.tensorInfos.find((t) => t.name === 'rope_freqs.weight')!;
    expect(info.shape).toEqual([8n]);
    expect(firstDifference(tensorValues(f, p, 'rope_freqs.weight'), ropeFreqFactors(TINY_LLAMA_CONFIG))).toBe(-1);
    const p16 = await parse(ggufPath('tiny-llama', 'F16'));
    expect(p16.tensorInfos.find((t) => t.name === 'rope_freqs.weight')!.dtype).toBe(0);
  });
});

describe('buildGgufModels', () => {
  const out = { micro: '', tiny: '' };
  beforeAll(async () => {
    const root = await mkdtemp(join(tmpdir(), 'gguf-build-'));
    out.micro = join(root, 'micro');
    out.tiny = join(root, 'tiny');
    // The micro model's committed artifact is read from its own folder; only the output goes elsewhere.
    const { mkdir, copyFile } = await import('node:fs/promises');
    await mkdir(out.micro, { recursive: true });
    for (const f of ['manifest.json', 'weights.bin']) await copyFile(join('models/micro-llama', f), join(out.micro, f));
    await buildGgufModels({ microDir: out.micro, tinyDir: out.tiny });
  }, 60_000);
  afterAll(() => rm(join(out.micro, '..'), { recursive: true, force: true }));

  const sha = async (p: string) => createHash('sha256').update(await readFile(p)).digest('hex');

  it('is deterministic: a fresh build has the same bytes as setup’s', async () => {
    for (const [model, dir] of [['micro-llama', out.micro], ['tiny-llama', out.tiny]] as const) {
      for (const type of ['F32', 'F16'] as const) expect(await sha(ggufPath(model, type, dir))).toBe(await sha(ggufPath(model, type)));
    }
  });

  it('does nothing when its stamp is current', async () => {
    const before = (await stat(ggufPath('micro-llama', 'F32', out.micro))).mtimeMs;
    await buildGgufModels({ microDir: out.micro, tinyDir: out.tiny });
    expect((await stat(ggufPath('micro-llama', 'F32', out.micro))).mtimeMs).toBe(before);
  });
});
