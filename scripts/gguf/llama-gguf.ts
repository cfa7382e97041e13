/**
 * An HF Llama checkpoint (our config + fp32 weights by HF name) as the GGUF llama.cpp loads:
 * llama.cpp's tensor names, Q and K rows permuted from HF's rotate-half layout to llama.cpp's
 * interleaved RoPE pairs (its converter's LlamaModel.permute), Llama 3.1 RoPE scaling as a
 * `rope_freqs.weight` tensor [head_dim / 2] of per-frequency divisors (not metadata), and
 * `llama.rope.freq_base` written explicitly (llama.cpp's default is 10000). F16 files keep the 1-D
 * tensors (norms, rope_freqs) in F32, as llama.cpp's converter does. A tied LM head is left out:
 * llama.cpp reuses token_embd.
 */
import type { LlamaConfig, LlamaWeights } from '../onnx/llama-config';
import { checkLlamaWeights, llamaDims, weight } from '../onnx/llama-config';
import { ropeInvFreq } from '../onnx/rope';
import { float16Bytes, float32Bytes } from './float16';
import type { GgmlType, GgufTensor, GgufValue } from './gguf-writer';
import type { GgufTokenizer } from './tokenizer-gguf';
import { tokenizerMetadata } from './tokenizer-gguf';

/** general.file_type (llama_ftype): all F32, or F16 for the 2-D weights. */
const FILE_TYPE: Record<GgmlType, number> = { F32: 0, F16: 1 };

export interface LlamaGgufOptions {
  name: string;
  /** llama.context_length: the longest sequence the model is meant for. */
  contextLength: number;
  /** Type of the 2-D weights; 1-D tensors are always F32. */
  type: GgmlType;
  tokenizer: GgufTokenizer;
}

export interface LlamaGguf {
  metadata: Array<[string, GgufValue]>;
  tensors: GgufTensor[];
}

export function llamaGguf(config: LlamaConfig, weights: LlamaWeights, o: LlamaGgufOptions): LlamaGguf {
  checkLlamaWeights(config, weights);
  const d = llamaDims(config);
  const u32 = (value: number): GgufValue => ({ type: 'uint32', value });
  const f32 = (value: number): GgufValue => ({ type: 'float32', value });
  const metadata: Array<[string, GgufValue]> = [
    ['general.architecture', { type: 'string', value: 'llama' }],
    ['general.name', { type: 'string', value: o.name }],
    ['general.file_type', u32(FILE_TYPE[o.type])],
    ['llama.vocab_size', u32(d.vocab)],
    ['llama.context_length', u32(o.contextLength)],
    ['llama.embedding_length', u32(d.hidden)],
    ['llama.block_count', u32(d.layers)],
    ['llama.feed_forward_length', u32(d.intermediate)],
    ['llama.attention.head_count', u32(d.heads)],
    ['llama.attention.head_count_kv', u32(d.kvHeads)],
    ['llama.attention.key_length', u32(d.headDim)],
    ['llama.attention.value_length', u32(d.headDim)],
    ['llama.attention.layer_norm_rms_epsilon', f32(config.rms_norm_eps)],
    ['llama.rope.dimension_count', u32(d.headDim)],
    ['llama.rope.freq_base', f32(config.rope_theta)],
    ...tokenizerMetadata(o.tokenizer),
  ];

  const matrix = (ggufName: string, hfName: string, rows: number, cols: number, permuteHeads?: number): GgufTensor => {
    let w = weight(weights, hfName, [rows, cols]);
    if (permuteHeads !== undefined) w = permuteRotaryRows(w, permuteHeads, cols);
    return { name: ggufName, shape: [cols, rows], type: o.type, data: o.type === 'F16' ? float16Bytes(w) : float32Bytes(w) };
  };
  const vector = (ggufName: string, values: ArrayLike<number>): GgufTensor => ({ name: ggufName, shape: [values.length], type: 'F32', data: float32Bytes(values) });

  const q = d.heads * d.headDim;
  const kv = d.kvHeads * d.headDim;
  const tensors: GgufTensor[] = [matrix('token_embd.weight', 'model.embed_tokens.weight', d.vocab, d.hidden)];
  const factors = ropeFreqFactors(config);
  if (factors) tensors.push(vector('rope_freqs.weight', factors));
  for (let l = 0; l < d.layers; l++) {
    const p = `model.layers.${l}`;
    const b = `blk.${l}`;
    tensors.push(
      vector(`${b}.attn_norm.weight`, weight(weights, `${p}.input_layernorm.weight`, [d.hidden])),
      matrix(`${b}.attn_q.weight`, `${p}.self_attn.q_proj.weight`, q, d.hidden, d.heads),
      matrix(`${b}.attn_k.weight`, `${p}.self_attn.k_proj.weight`, kv, d.hidden, d.kvHeads),
      matrix(`${b}.attn_v.weight`, `${p}.self_attn.v_proj.weight`, kv, d.hidden),
      matrix(`${b}.attn_output.weight`, `${p}.self_attn.o_proj.weight`, d.hidden, q),
      vector(`${b}.ffn_norm.weight`, weight(weights, `${p}.post_attention_layernorm.weight`, [d.hidden])),
      matrix(`${b}.ffn_gate.weight`, `${p}.mlp.gate_proj.weight`, d.intermediate, d.hidden),
      matrix(`${b}.ffn_up.weight`, `${p}.mlp.up_proj.weight`, d.intermediate, d.hidden),
      matrix(`${b}.ffn_down.weight`, `${p}.mlp.down_proj.weight`, d.hidden, d.intermediate),
    );
  }
  tensors.push(vector('output_norm.weight', weight(weights, 'model.norm.weight', [d.hidden])));
  if (!config.tie_word_embeddings) tensors.push(matrix('output.weight', 'lm_head.weight', d.vocab, d.hidden));
  return { metadata, tensors };
}

/**
 * HF's q/k rows per head are [first halves of the RoPE pairs; second halves]; llama.cpp's are the pairs
 * interleaved. Row h·hd + 2j + s of the result is row h·hd + s·hd/2 + j of `w` (LlamaModel.permute:
 * reshape(heads, 2, hd/2, cols).swapaxes(1, 2)).
 */
export function permuteRotaryRows(w: Float32Array, heads: number, cols: number): Float32Array {
  const rows = w.length / cols;
  const hd = rows / heads;
  if (!Number.isInteger(hd) || hd % 2 !== 0) throw new Error(`permute: ${rows} rows do not split into ${heads} heads of even width`);
  const out = new Float32Array(w.length);
  for (let h = 0; h < heads; h++) {
    for (let j = 0; j < hd / 2; j++) {
      for (let s = 0; s < 2; s++) {
        const from = (h * hd + s * (hd / 2) + j) * cols;
        out.set(w.subarray(from, from + cols), (h * hd + 2 * j + s) * cols);
      }
    }
  }
  return out;
}

/**
 * llama.cpp's `rope_freqs` for Llama 3.1 scaling: per frequency i, the divisor of the unscaled
 * theta^(-2i/hd) that gives the scaled one (1 for kept high frequencies, `factor` for the lowest).
 * Null without scaling.
 */
export function ropeFreqFactors(config: LlamaConfig): Float32Array | null {
  if (!config.rope_scaling) return null;
  const scaled = ropeInvFreq(config);
  const plain = ropeInvFreq({ ...config, rope_scaling: null });
  return Float32Array.from(scaled, (f, i) => plain[i]! / f);
}
