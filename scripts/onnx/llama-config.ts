/**
 * The Llama architecture's hyper-parameters and weights as Hugging Face names them
 * (`config.json` of a LlamaForCausalLM checkpoint), shared by the ONNX builder and the reference forward.
 */

/** Llama 3.1 RoPE frequency scaling (`rope_scaling.rope_type === 'llama3'`). */
export interface Llama3RopeScaling {
  rope_type: 'llama3';
  factor: number;
  low_freq_factor: number;
  high_freq_factor: number;
  original_max_position_embeddings: number;
}

/** The subset of HF `LlamaConfig` the forward depends on; snake_case because it is config.json's wire format. */
export interface LlamaConfig {
  vocab_size: number;
  hidden_size: number;
  intermediate_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  num_key_value_heads: number;
  /** Per-head width; HF defaults it to hidden_size / num_attention_heads when absent. */
  head_dim?: number;
  rms_norm_eps: number;
  rope_theta: number;
  rope_scaling: Llama3RopeScaling | null;
  tie_word_embeddings: boolean;
}

/**
 * Float32 weights keyed by HF tensor names, each row-major in HF's layout ([out, in] for projections):
 * `model.embed_tokens.weight` [vocab, hidden], `model.layers.N.self_attn.{q,k,v,o}_proj.weight`,
 * `model.layers.N.mlp.{gate,up,down}_proj.weight`, `model.layers.N.{input,post_attention}_layernorm.weight`,
 * `model.norm.weight`, and `lm_head.weight` [vocab, hidden] only when embeddings are not tied.
 */
export type LlamaWeights = Readonly<Record<string, Float32Array>>;

/** Derived sizes of a validated config. */
export interface LlamaDims {
  vocab: number;
  hidden: number;
  intermediate: number;
  layers: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  /** Query heads per kv head (GQA group size). */
  groupSize: number;
}

/** Sizes implied by `config`; throws on an inconsistent config (non-integer sizes, heads not divisible, odd head_dim). */
export function llamaDims(config: LlamaConfig): LlamaDims {
  const heads = config.num_attention_heads;
  const kvHeads = config.num_key_value_heads;
  const headDim = config.head_dim ?? config.hidden_size / heads;
  const dims: LlamaDims = {
    vocab: config.vocab_size,
    hidden: config.hidden_size,
    intermediate: config.intermediate_size,
    layers: config.num_hidden_layers,
    heads,
    kvHeads,
    headDim,
    groupSize: heads / kvHeads,
  };
  for (const [name, value] of Object.entries(dims)) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`llama config: ${name} must be a positive integer, got ${value}`);
  }
  if (headDim % 2 !== 0) throw new Error(`llama config: head_dim must be even for RoPE, got ${headDim}`);
  return dims;
}

/** The HF weight names and shapes a config requires, in a stable order. */
export function llamaWeightShapes(config: LlamaConfig): Array<[name: string, shape: [number, number] | [number]]> {
  const d = llamaDims(config);
  const q = d.heads * d.headDim;
  const kv = d.kvHeads * d.headDim;
  const out: Array<[string, [number, number] | [number]]> = [['model.embed_tokens.weight', [d.vocab, d.hidden]]];
  for (let l = 0; l < d.layers; l++) {
    const p = `model.layers.${l}`;
    out.push(
      [`${p}.input_layernorm.weight`, [d.hidden]],
      [`${p}.self_attn.q_proj.weight`, [q, d.hidden]],
      [`${p}.self_attn.k_proj.weight`, [kv, d.hidden]],
      [`${p}.self_attn.v_proj.weight`, [kv, d.hidden]],
      [`${p}.self_attn.o_proj.weight`, [d.hidden, q]],
      [`${p}.post_attention_layernorm.weight`, [d.hidden]],
      [`${p}.mlp.gate_proj.weight`, [d.intermediate, d.hidden]],
      [`${p}.mlp.up_proj.weight`, [d.intermediate, d.hidden]],
      [`${p}.mlp.down_proj.weight`, [d.hidden, d.intermediate]],
    );
  }
  out.push(['model.norm.weight', [d.hidden]]);
  if (!config.tie_word_embeddings) out.push(['lm_head.weight', [d.vocab, d.hidden]]);
  return out;
}

/** Returns the named weight; throws if it is missing or its length does not match the config. */
export function weight(weights: LlamaWeights, name: string, shape: readonly number[]): Float32Array {
  const w = weights[name];
  if (!w) throw new Error(`llama weights: missing ${name}`);
  const size = shape.reduce((a, b) => a * b, 1);
  if (w.length !== size) throw new Error(`llama weights: ${name} has ${w.length} values, expected ${shape.join('x')}`);
  return w;
}

/** Throws unless every weight the config needs is present with the right size. */
export function checkLlamaWeights(config: LlamaConfig, weights: LlamaWeights): void {
  for (const [name, shape] of llamaWeightShapes(config)) weight(weights, name, shape);
}
