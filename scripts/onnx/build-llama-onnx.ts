import type { LlamaConfig, LlamaDims, LlamaWeights } from './llama-config';
import { checkLlamaWeights, llamaDims, weight } from './llama-config';
import { OnnxGraph } from './onnx-graph';
import { ropeInvFreq } from './rope';

/** Default-domain opset the graph targets; every op used is in onnxruntime-web's WebGPU and WASM kernels. */
export const LLAMA_ONNX_OPSET = 17;

/** Additive mask value for a hidden key: finite so that a fully masked row still softmaxes without NaN. */
const MASKED = -1e9;

/** Symbolic dimension names; `batch_size` and `past_sequence_length` are what transformers.js resolves for an empty cache. */
const BATCH = 'batch_size';
const SEQ = 'sequence_length';
const PAST = 'past_sequence_length';
const TOTAL = 'total_sequence_length';

export interface BuildLlamaOnnxOptions {
  /**
   * Add the `num_logits_to_keep` input (default true). Without it a prefill of n tokens always computes
   * n × vocab logits (n = 2,000 at Llama 3's vocab is 1 GB of float32), which a decode loop never needs.
   */
  numLogitsToKeep?: boolean;
}

/** Graph input/output names for layer `l`'s KV cache, as transformers.js names them for decoder-only models. */
export function pastKeyName(l: number): string {
  return `past_key_values.${l}.key`;
}
export function pastValueName(l: number): string {
  return `past_key_values.${l}.value`;
}
export function presentKeyName(l: number): string {
  return `present.${l}.key`;
}
export function presentValueName(l: number): string {
  return `present.${l}.value`;
}

/**
 * Serializes a Llama decoder (HF LlamaForCausalLM semantics) with KV cache as one ONNX model, opset 17.
 *
 * Inputs: `input_ids` [batch, seq] int64, `attention_mask` [batch, past+seq] int64 (0 hides that key),
 * `position_ids` [batch, seq] int64 (RoPE positions), `past_key_values.N.{key,value}` float32
 * [batch, kv_heads, past, head_dim] (past may be 0), and unless disabled `num_logits_to_keep` int64 scalar
 * (k > 0: logits of the last k positions only; 0: all; transformers.js feeds it itself: 0 in forward, 1 in
 * generate). Outputs: `logits` [batch, seq or k, vocab] float32, `present.N.{key,value}`
 * [batch, kv_heads, past+seq, head_dim] (past ++ new, keys already rotated). Query i of the chunk sits at
 * cache index past+i and sees cache indices 0..past+i whose attention_mask is 1. The embedding is stored
 * once and reused, transposed by Gemm, as the LM head when tied.
 */
export function buildLlamaOnnx(config: LlamaConfig, weights: LlamaWeights, options: BuildLlamaOnnxOptions = {}): Uint8Array {
  const d = llamaDims(config);
  checkLlamaWeights(config, weights);
  const g = new OnnxGraph();
  const inputIds = g.input('input_ids', 'int64', [BATCH, SEQ]);
  const attentionMask = g.input('attention_mask', 'int64', [BATCH, TOTAL]);
  const positionIds = g.input('position_ids', 'int64', [BATCH, SEQ]);
  const keepLogits = options.numLogitsToKeep === false ? null : g.input('num_logits_to_keep', 'int64', []);
  const past: Array<[string, string]> = [];
  for (let l = 0; l < d.layers; l++) {
    const kvDims = [BATCH, d.kvHeads, PAST, d.headDim];
    past.push([g.input(pastKeyName(l), 'float32', kvDims), g.input(pastValueName(l), 'float32', kvDims)]);
  }

  const embed = g.floatInitializer('model.embed_tokens.weight', weight(weights, 'model.embed_tokens.weight', [d.vocab, d.hidden]), [d.vocab, d.hidden]);
  let h = g.op('Gather', [embed, inputIds], { axis: { int: 0 } }, undefined, 'embeds');

  const mask = attentionBias(g, inputIds, attentionMask);
  const rope = ropeTables(g, config, positionIds);

  for (let l = 0; l < d.layers; l++) {
    const p = `model.layers.${l}`;
    const [pastK, pastV] = past[l]!;
    const normed = rmsNorm(g, h, norm(g, weights, `${p}.input_layernorm.weight`, d), config.rms_norm_eps);
    const q = heads(g, linear(g, weights, normed, `${p}.self_attn.q_proj.weight`, d.heads * d.headDim, d.hidden), d.heads, d.headDim);
    const k = heads(g, linear(g, weights, normed, `${p}.self_attn.k_proj.weight`, d.kvHeads * d.headDim, d.hidden), d.kvHeads, d.headDim);
    const v = heads(g, linear(g, weights, normed, `${p}.self_attn.v_proj.weight`, d.kvHeads * d.headDim, d.hidden), d.kvHeads, d.headDim);
    const presentK = g.op('Concat', [pastK, applyRope(g, k, rope, d.headDim)], { axis: { int: 2 } }, presentKeyName(l));
    const presentV = g.op('Concat', [pastV, v], { axis: { int: 2 } }, presentValueName(l));
    const ctx = attention(g, applyRope(g, q, rope, d.headDim), repeatKv(g, presentK, d), repeatKv(g, presentV, d), mask, d);
    h = g.op('Add', [h, linear(g, weights, ctx, `${p}.self_attn.o_proj.weight`, d.hidden, d.heads * d.headDim)], {}, undefined, 'resid');

    const normed2 = rmsNorm(g, h, norm(g, weights, `${p}.post_attention_layernorm.weight`, d), config.rms_norm_eps);
    const gate = linear(g, weights, normed2, `${p}.mlp.gate_proj.weight`, d.intermediate, d.hidden);
    const up = linear(g, weights, normed2, `${p}.mlp.up_proj.weight`, d.intermediate, d.hidden);
    const act = g.op('Mul', [g.op('Mul', [gate, g.op('Sigmoid', [gate])], {}, undefined, 'silu'), up]);
    h = g.op('Add', [h, linear(g, weights, act, `${p}.mlp.down_proj.weight`, d.hidden, d.intermediate)], {}, undefined, 'resid');
  }

  if (keepLogits) {
    // HF slice(-k, None) on the sequence axis: k = 0 starts at 0 and keeps every position.
    const start = g.op('Neg', [g.op('Unsqueeze', [keepLogits, g.constInt64([0])])]);
    h = g.op('Slice', [h, start, g.constInt64([Number.MAX_SAFE_INTEGER]), g.constInt64([1])], {}, undefined, 'kept_hidden');
  }
  const final = rmsNorm(g, h, norm(g, weights, 'model.norm.weight', d), config.rms_norm_eps);
  const head = config.tie_word_embeddings
    ? embed
    : g.floatInitializer('lm_head.weight', weight(weights, 'lm_head.weight', [d.vocab, d.hidden]), [d.vocab, d.hidden]);
  const flat = g.op('Reshape', [final, g.constInt64([-1, d.hidden])]);
  const logits2d = g.op('Gemm', [flat, head], { transB: { int: 1 } }, undefined, 'logits_2d');
  const batchSeq = g.op('Slice', [g.op('Shape', [final]), g.constInt64([0]), g.constInt64([2])]);
  const logitsShape = g.op('Concat', [batchSeq, g.constInt64([d.vocab])], { axis: { int: 0 } });
  g.op('Reshape', [logits2d, logitsShape], {}, 'logits');

  g.output('logits', 'float32', [BATCH, keepLogits ? 'logits_sequence_length' : SEQ, d.vocab]);
  for (let l = 0; l < d.layers; l++) {
    const kvDims = [BATCH, d.kvHeads, TOTAL, d.headDim];
    g.output(presentKeyName(l), 'float32', kvDims);
    g.output(presentValueName(l), 'float32', kvDims);
  }
  return g.encode({ name: 'llama', opset: LLAMA_ONNX_OPSET, docString: 'Llama decoder with KV cache (scripts/onnx/build-llama-onnx.ts)' });
}

/** y = x / sqrt(mean(x², last axis) + eps) · w, as HF LlamaRMSNorm in float32. */
function rmsNorm(g: OnnxGraph, x: string, w: string, eps: number): string {
  const meanSq = g.op('ReduceMean', [g.op('Mul', [x, x])], { axes: { ints: [-1] }, keepdims: { int: 1 } });
  const rms = g.op('Sqrt', [g.op('Add', [meanSq, g.constFloat([eps], [])])]);
  return g.op('Mul', [g.op('Div', [x, rms]), w], {}, undefined, 'rmsnorm');
}

function norm(g: OnnxGraph, weights: LlamaWeights, name: string, d: LlamaDims): string {
  return g.floatInitializer(name, weight(weights, name, [d.hidden]), [d.hidden]);
}

/** x @ Wᵀ for an HF [out, in] weight, stored pre-transposed as [in, out] so MatMul broadcasts over batch and seq. */
function linear(g: OnnxGraph, weights: LlamaWeights, x: string, name: string, out: number, inp: number): string {
  const w = weight(weights, name, [out, inp]);
  const t = new Float32Array(inp * out);
  for (let o = 0; o < out; o++) for (let i = 0; i < inp; i++) t[i * out + o] = w[o * inp + i]!;
  return g.op('MatMul', [x, g.floatInitializer(`${name}.T`, t, [inp, out])]);
}

/** [batch, seq, n·headDim] → [batch, n, seq, headDim]. */
function heads(g: OnnxGraph, x: string, n: number, headDim: number): string {
  const split = g.op('Reshape', [x, g.constInt64([0, 0, n, headDim])]);
  return g.op('Transpose', [split], { perm: { ints: [0, 2, 1, 3] } });
}

interface RopeTables {
  cos: string;
  sin: string;
}

/** cos/sin of position·inv_freq, duplicated across both halves of head_dim: [batch, 1, seq, headDim]. */
function ropeTables(g: OnnxGraph, config: LlamaConfig, positionIds: string): RopeTables {
  const invFreq = g.constFloat(Array.from(ropeInvFreq(config)));
  const pos = g.op('Unsqueeze', [g.op('Cast', [positionIds], { to: { int: 1 } }), g.constInt64([2])]);
  const freqs = g.op('Mul', [pos, invFreq], {}, undefined, 'rope_freqs');
  const emb = g.op('Concat', [freqs, freqs], { axis: { int: -1 } });
  const axis1 = g.constInt64([1]);
  return {
    cos: g.op('Unsqueeze', [g.op('Cos', [emb]), axis1], {}, undefined, 'rope_cos'),
    sin: g.op('Unsqueeze', [g.op('Sin', [emb]), axis1], {}, undefined, 'rope_sin'),
  };
}

/** x·cos + rotate_half(x)·sin with rotate_half(x) = concat(−x[half:], x[:half]) (HF convention). */
function applyRope(g: OnnxGraph, x: string, rope: RopeTables, headDim: number): string {
  const half = headDim / 2;
  const axes = g.constInt64([-1]);
  const x1 = g.op('Slice', [x, g.constInt64([0]), g.constInt64([half]), axes]);
  const x2 = g.op('Slice', [x, g.constInt64([half]), g.constInt64([headDim]), axes]);
  const rotated = g.op('Concat', [g.op('Neg', [x2]), x1], { axis: { int: -1 } });
  return g.op('Add', [g.op('Mul', [x, rope.cos]), g.op('Mul', [rotated, rope.sin])], {}, undefined, 'roped');
}

/** [batch, kv, T, hd] → [batch, kv·group, T, hd], query head h reading kv head ⌊h / group⌋ (HF repeat_kv). */
function repeatKv(g: OnnxGraph, x: string, d: LlamaDims): string {
  if (d.groupSize === 1) return x;
  const wide = g.op('Expand', [g.op('Unsqueeze', [x, g.constInt64([2])]), g.constInt64([1, 1, d.groupSize, 1, 1])]);
  return g.op('Reshape', [wide, g.constInt64([0, d.heads, -1, d.headDim])]);
}

/**
 * Additive attention bias [batch, 1, seq, past+seq]: 0 where cache index j ≤ past + i and
 * attention_mask[b, j] = 1, else ≤ MASKED. Cache indices, not position_ids, define causality.
 */
function attentionBias(g: OnnxGraph, inputIds: string, attentionMask: string): string {
  const scalar = (i: number): string => g.constInt64([i], []);
  // Lengths come from the (CPU-resident) inputs, never from the cache tensors, which may live on the GPU.
  // A mask whose length is not past+seq fails to broadcast against the scores, so a mismatch cannot pass silently.
  const total = g.op('Gather', [g.op('Shape', [attentionMask]), scalar(1)], { axis: { int: 0 } }, undefined, 'total_len');
  const seqLen = g.op('Gather', [g.op('Shape', [inputIds]), scalar(1)], { axis: { int: 0 } }, undefined, 'seq_len');
  const pastLen = g.op('Sub', [total, seqLen], {}, undefined, 'past_len');
  const keyIdx = g.op('Range', [scalar(0), total, scalar(1)], {}, undefined, 'key_idx');
  const queryIdx = g.op('Unsqueeze', [g.op('Range', [pastLen, total, scalar(1)], {}, undefined, 'query_idx'), g.constInt64([1])]);
  const visible = g.op('LessOrEqual', [keyIdx, queryIdx], {}, undefined, 'causal');
  const causal = g.op('Where', [visible, g.constFloat([0], []), g.constFloat([MASKED], [])], {}, undefined, 'causal_bias');
  const keep = g.op('Cast', [attentionMask], { to: { int: 1 } });
  const padding = g.op('Mul', [g.op('Sub', [g.constFloat([1], []), keep]), g.constFloat([MASKED], [])], {}, undefined, 'padding_bias');
  const padding4d = g.op('Unsqueeze', [padding, g.constInt64([1, 2])]);
  return g.op('Add', [padding4d, causal], {}, undefined, 'attn_bias');
}

/** softmax(q·kᵀ/√hd + bias)·v, merged back to [batch, seq, heads·hd]. */
function attention(g: OnnxGraph, q: string, k: string, v: string, bias: string, d: LlamaDims): string {
  const kT = g.op('Transpose', [k], { perm: { ints: [0, 1, 3, 2] } });
  const scores = g.op('Mul', [g.op('MatMul', [q, kT]), g.constFloat([1 / Math.sqrt(d.headDim)], [])], {}, undefined, 'scores');
  const probs = g.op('Softmax', [g.op('Add', [scores, bias])], { axis: { int: -1 } }, undefined, 'probs');
  const ctx = g.op('Transpose', [g.op('MatMul', [probs, v])], { perm: { ints: [0, 2, 1, 3] } });
  return g.op('Reshape', [ctx, g.constInt64([0, 0, d.heads * d.headDim])], {}, undefined, 'attn_ctx');
}
