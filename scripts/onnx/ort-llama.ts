/**
 * Runs a graph from buildLlamaOnnx in onnxruntime-node: the direct (no transformers.js) path the tests use
 * to check the graph against the reference forward and against itself with a KV cache.
 */
import { InferenceSession, Tensor } from 'onnxruntime-node';
import type { LlamaConfig } from './llama-config';
import { llamaDims } from './llama-config';
import { pastKeyName, pastValueName, presentKeyName, presentValueName } from './build-llama-onnx';

/** Per layer [key, value], each float32 [batch, kv_heads, len, head_dim]. */
export type KvCache = Array<[Tensor, Tensor]>;

export interface LlamaStepInput {
  /** Token ids per batch row; every row the same length. */
  ids: readonly (readonly number[])[];
  /** Per row, 1/0 over past+seq; default all ones. */
  attentionMask?: readonly (readonly number[])[];
  /** Per row RoPE positions; default past..past+seq-1. */
  positionIds?: readonly (readonly number[])[];
  /** Cache from a previous step; default empty (past length 0). */
  past?: KvCache;
  /** Logits for the last k positions only; default 0 = all. Fed only to graphs with `num_logits_to_keep`. */
  logitsToKeep?: number;
}

export interface LlamaStepOutput {
  /** [batch, seq (or logitsToKeep), vocab] row-major. */
  logits: Float32Array;
  dims: [number, number, number];
  present: KvCache;
}

/** Opens an InferenceSession on the CPU EP for a serialized model. */
export async function openLlamaSession(model: Uint8Array | string): Promise<InferenceSession> {
  const opts: InferenceSession.SessionOptions = { executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1 };
  return typeof model === 'string' ? InferenceSession.create(model, opts) : InferenceSession.create(model, opts);
}

/** One forward over `ids` extending `past`; returns every position's logits and the grown cache. */
export async function runLlamaStep(session: InferenceSession, config: LlamaConfig, input: LlamaStepInput): Promise<LlamaStepOutput> {
  const d = llamaDims(config);
  const batch = input.ids.length;
  const seq = input.ids[0]?.length ?? 0;
  if (input.ids.some((r) => r.length !== seq)) throw new Error('runLlamaStep: ragged ids');
  const pastLen = input.past?.[0]?.[0].dims[2] ?? 0;
  const total = pastLen + seq;
  const mask = input.attentionMask ?? input.ids.map(() => Array.from({ length: total }, () => 1));
  const positions = input.positionIds ?? input.ids.map(() => Array.from({ length: seq }, (_, i) => pastLen + i));
  const feeds: Record<string, Tensor> = {
    input_ids: int64(input.ids, [batch, seq]),
    attention_mask: int64(mask, [batch, total]),
    position_ids: int64(positions, [batch, seq]),
  };
  if (session.inputNames.includes('num_logits_to_keep')) {
    feeds['num_logits_to_keep'] = new Tensor('int64', BigInt64Array.of(BigInt(input.logitsToKeep ?? 0)), []);
  } else if (input.logitsToKeep) {
    throw new Error('runLlamaStep: this graph has no num_logits_to_keep input');
  }
  for (let l = 0; l < d.layers; l++) {
    const kv = input.past?.[l];
    const empty = (): Tensor => new Tensor('float32', new Float32Array(0), [batch, d.kvHeads, 0, d.headDim]);
    feeds[pastKeyName(l)] = kv ? kv[0] : empty();
    feeds[pastValueName(l)] = kv ? kv[1] : empty();
  }
  const out = await session.run(feeds);
  const logits = out['logits'];
  if (!logits) throw new Error('runLlamaStep: no logits output');
  const present: KvCache = [];
  for (let l = 0; l < d.layers; l++) present.push([out[presentKeyName(l)]!, out[presentValueName(l)]!]);
  return { logits: logits.data as Float32Array, dims: logits.dims as [number, number, number], present };
}

function int64(rows: readonly (readonly number[])[], dims: number[]): Tensor {
  const flat = rows.flat();
  const expected = dims.reduce((a, b) => a * b, 1);
  if (flat.length !== expected) throw new Error(`runLlamaStep: ${flat.length} values for dims [${dims.join(', ')}]`);
  return new Tensor('int64', BigInt64Array.from(flat.map((v) => BigInt(v))), dims);
}
