import type { LlamaConfig, LlamaWeights } from './llama-config';
import { llamaDims, weight } from './llama-config';
import { ropeInvFreq } from './rope';

/**
 * Plain Float64 forward of HF LlamaForCausalLM for one unpadded sequence, straight from the weights:
 * embedding → per layer (RMSNorm → GQA attention with RoPE and a causal mask → residual → RMSNorm →
 * SwiGLU → residual) → final RMSNorm → LM head (the embedding when tied). Returns logits row-major
 * [seq, vocab]. `positionIds` default to 0..seq-1; `logitsAt` (indexes into the sequence) limits the LM head
 * to those rows, the others left 0 (the head is most of the work on a 128k vocabulary). No cache, no
 * batching: the independent check of the ONNX graph, so it shares nothing with the builder beyond the
 * config and the RoPE frequencies.
 */
export function referenceLlamaForward(
  config: LlamaConfig,
  weights: LlamaWeights,
  inputIds: readonly number[],
  positionIds: readonly number[] = inputIds.map((_, i) => i),
  logitsAt: readonly number[] = inputIds.map((_, i) => i),
): Float64Array {
  const d = llamaDims(config);
  const n = inputIds.length;
  if (positionIds.length !== n) throw new Error('reference: positionIds must match inputIds in length');
  const H = d.hidden;
  const qDim = d.heads * d.headDim;
  const kvDim = d.kvHeads * d.headDim;
  const eps = config.rms_norm_eps;
  const embed = weight(weights, 'model.embed_tokens.weight', [d.vocab, H]);

  // Residual stream, one row per token.
  const x: Float64Array[] = inputIds.map((id) => {
    if (!Number.isInteger(id) || id < 0 || id >= d.vocab) throw new Error(`reference: token id ${id} out of range`);
    return Float64Array.from(embed.subarray(id * H, (id + 1) * H));
  });
  const invFreq = ropeInvFreq(config);

  for (let l = 0; l < d.layers; l++) {
    const p = `model.layers.${l}`;
    const wq = weight(weights, `${p}.self_attn.q_proj.weight`, [qDim, H]);
    const wk = weight(weights, `${p}.self_attn.k_proj.weight`, [kvDim, H]);
    const wv = weight(weights, `${p}.self_attn.v_proj.weight`, [kvDim, H]);
    const wo = weight(weights, `${p}.self_attn.o_proj.weight`, [H, qDim]);
    const ln1 = weight(weights, `${p}.input_layernorm.weight`, [H]);
    const ln2 = weight(weights, `${p}.post_attention_layernorm.weight`, [H]);
    const wg = weight(weights, `${p}.mlp.gate_proj.weight`, [d.intermediate, H]);
    const wu = weight(weights, `${p}.mlp.up_proj.weight`, [d.intermediate, H]);
    const wd = weight(weights, `${p}.mlp.down_proj.weight`, [H, d.intermediate]);

    const qs: Float64Array[] = [];
    const ks: Float64Array[] = [];
    const vs: Float64Array[] = [];
    for (let t = 0; t < n; t++) {
      const hn = rmsNorm(x[t]!, ln1, eps);
      qs.push(rope(matVec(wq, hn, qDim), d.heads, d.headDim, positionIds[t]!, invFreq));
      ks.push(rope(matVec(wk, hn, kvDim), d.kvHeads, d.headDim, positionIds[t]!, invFreq));
      vs.push(matVec(wv, hn, kvDim));
    }
    const scale = 1 / Math.sqrt(d.headDim);
    for (let t = 0; t < n; t++) {
      const ctx = new Float64Array(qDim);
      for (let h = 0; h < d.heads; h++) {
        const kvh = Math.floor(h / d.groupSize);
        const scores = new Float64Array(t + 1);
        for (let s = 0; s <= t; s++) {
          let dot = 0;
          for (let i = 0; i < d.headDim; i++) dot += qs[t]![h * d.headDim + i]! * ks[s]![kvh * d.headDim + i]!;
          scores[s] = dot * scale;
        }
        softmaxInPlace(scores);
        for (let s = 0; s <= t; s++) {
          for (let i = 0; i < d.headDim; i++) ctx[h * d.headDim + i]! += scores[s]! * vs[s]![kvh * d.headDim + i]!;
        }
      }
      addInPlace(x[t]!, matVec(wo, ctx, H));
    }
    for (let t = 0; t < n; t++) {
      const hn = rmsNorm(x[t]!, ln2, eps);
      const gate = matVec(wg, hn, d.intermediate);
      const up = matVec(wu, hn, d.intermediate);
      const act = gate.map((gv, i) => (gv / (1 + Math.exp(-gv))) * up[i]!);
      addInPlace(x[t]!, matVec(wd, act, H));
    }
  }

  const finalNorm = weight(weights, 'model.norm.weight', [H]);
  const head = config.tie_word_embeddings ? embed : weight(weights, 'lm_head.weight', [d.vocab, H]);
  const logits = new Float64Array(n * d.vocab);
  for (const t of logitsAt) logits.set(matVec(head, rmsNorm(x[t]!, finalNorm, eps), d.vocab), t * d.vocab);
  return logits;
}

/** W [rows, x.length] row-major times x. */
function matVec(w: Float32Array, x: Float64Array, rows: number): Float64Array {
  const cols = x.length;
  const y = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    let acc = 0;
    const base = r * cols;
    for (let c = 0; c < cols; c++) acc += w[base + c]! * x[c]!;
    y[r] = acc;
  }
  return y;
}

function rmsNorm(x: Float64Array, w: Float32Array, eps: number): Float64Array {
  let ss = 0;
  for (const v of x) ss += v * v;
  const inv = 1 / Math.sqrt(ss / x.length + eps);
  return x.map((v, i) => v * inv * w[i]!);
}

/** Rotates each head's pairs (i, i + half) by position·inv_freq[i] (HF rotate_half layout). */
function rope(x: Float64Array, nHeads: number, headDim: number, pos: number, invFreq: Float64Array): Float64Array {
  const half = headDim / 2;
  const out = new Float64Array(x.length);
  for (let h = 0; h < nHeads; h++) {
    const o = h * headDim;
    for (let i = 0; i < half; i++) {
      const angle = pos * invFreq[i]!;
      const c = Math.cos(angle);
      const s = Math.sin(angle);
      const a = x[o + i]!;
      const b = x[o + i + half]!;
      out[o + i] = a * c - b * s;
      out[o + i + half] = b * c + a * s;
    }
  }
  return out;
}

function softmaxInPlace(v: Float64Array): void {
  let max = -Infinity;
  for (const s of v) max = Math.max(max, s);
  let sum = 0;
  for (let i = 0; i < v.length; i++) {
    v[i] = Math.exp(v[i]! - max);
    sum += v[i]!;
  }
  for (let i = 0; i < v.length; i++) v[i]! /= sum;
}

function addInPlace(acc: Float64Array, y: Float64Array): void {
  for (let i = 0; i < acc.length; i++) acc[i]! += y[i]!;
}
