/**
 * The onnx backend's forward pass: onnxruntime's session driven directly (not through transformers.js's
 * forward, whose per-call wrappers — input validation, proxied tensors, its cache object — cost on every
 * token), the past key/values kept between calls as the runtime returned them. The backend is one
 * sequence; `openSequence` gives more on the same session, each with its own past key/values (the
 * engine runs one step of the session at a time).
 *
 * Per token nothing is rebuilt that can be kept: the ids, positions and attention-mask buffers are
 * allocated once (grown when a longer sequence needs them) and passed as views; the logits are sampled
 * where the runtime wrote them (no copy); on WebGPU the key/values stay GPU buffers between steps
 * (transformers.js creates the session with them as the preferred output location). On CPU and WASM
 * the runtime's API copies them out and back in each step: onnxruntime-node ignores pre-allocated
 * outputs, and WASM inputs are always copied into its heap.
 *
 * Invariants: `past` holds exactly `length` positions per layer; every replaced GPU tensor is disposed;
 * once the device is lost, every failure is `device_lost`. A rollback (`truncate`) slices the past along
 * the sequence axis (GPU tensors are read back once for it: rare, and far cheaper than a re-prefill).
 */
import { Tensor } from 'onnxruntime-common';
import { EngineError } from '../../src/engine/errors';
import type { LogitsBackend, OpenedSequence } from './backend';

/** The parts of an onnxruntime InferenceSession this backend uses (onnxruntime-node or -web). */
export interface OrtSession {
  readonly inputNames: readonly string[];
  run(feeds: Record<string, Tensor>): Promise<Record<string, Tensor>>;
}

export interface OnnxShape {
  layers: number;
  kvHeads: number;
  headDim: number;
  /** Element type of the key/values ('float32', or 'float16' for f16 weights). */
  kvType: 'float32' | 'float16';
}

export class OnnxSessionBackend implements LogitsBackend {
  readonly kind = 'logits';
  private past: Record<string, Tensor> = {};
  private length = 0;
  private deviceLost = false;
  private ids = new BigInt64Array(512);
  private positions = new BigInt64Array(512);
  private mask = new BigInt64Array(1024).fill(1n);
  private readonly oneLogit = new Tensor('int64', BigInt64Array.of(1n), []);
  private readonly names: Array<{ past: string; present: string }> = [];

  constructor(
    private readonly session: OrtSession,
    private readonly shape: OnnxShape,
    readonly device: 'webgpu' | 'wasm' | 'cpu',
    /** Ids fed per prefill step at most: bounds the attention scores' memory on a long prompt. */
    readonly prefillChunk: number,
    private readonly release: () => Promise<void>,
    private readonly watchLoss?: Promise<unknown>,
  ) {
    for (let layer = 0; layer < shape.layers; layer++) {
      for (const kind of ['key', 'value']) this.names.push({ past: `past_key_values.${layer}.${kind}`, present: `present.${layer}.${kind}` });
    }
    void watchLoss?.then(() => (this.deviceLost = true));
  }

  /** A key and a value per layer, kvHeads × headDim elements each. */
  get kvBytesPerToken(): number {
    return this.shape.layers * 2 * this.shape.kvHeads * this.shape.headDim * (this.shape.kvType === 'float16' ? 2 : 4);
  }

  async step(ids: readonly number[], pick: (logits: Float32Array) => number): Promise<number> {
    const n = ids.length;
    const total = this.length + n;
    this.reserve(n, total);
    for (let i = 0; i < n; i++) {
      this.ids[i] = BigInt(ids[i]!);
      this.positions[i] = BigInt(this.length + i);
    }
    const feeds: Record<string, Tensor> = {
      input_ids: new Tensor('int64', this.ids.subarray(0, n), [1, n]),
      attention_mask: new Tensor('int64', this.mask.subarray(0, total), [1, total]),
      position_ids: new Tensor('int64', this.positions.subarray(0, n), [1, n]),
      num_logits_to_keep: this.oneLogit,
    };
    for (const { past } of this.names) feeds[past] = this.past[past] ?? this.emptyPast();
    const out = await this.onDevice(() => this.session.run(feeds));
    for (const { past, present } of this.names) {
      const old = this.past[past];
      this.past[past] = out[present]!;
      if (old && old.location === 'gpu-buffer') old.dispose();
    }
    this.length = total;
    // num_logits_to_keep is 1: the logits are the last position's, ours to modify.
    return pick(out.logits!.data as Float32Array);
  }

  async truncate(n: number): Promise<void> {
    if (n >= this.length) return;
    if (n <= 0) return this.reset();
    const kept: Record<string, Tensor> = {};
    await this.onDevice(async () => {
      for (const { past } of this.names) kept[past] = await keepPositions(this.past[past]!, n);
    });
    this.disposePast();
    this.past = kept;
    this.length = n;
  }

  async reset(): Promise<void> {
    this.disposePast();
    this.past = {};
    this.length = 0;
  }

  async dispose(): Promise<void> {
    await this.reset().catch(() => {});
    await this.release();
  }

  /** Another sequence on this session: empty past key/values of its own; closing it frees them, not the session. */
  async openSequence(): Promise<OpenedSequence> {
    const sequence = new OnnxSessionBackend(this.session, this.shape, this.device, this.prefillChunk, async () => {}, this.watchLoss);
    return Object.assign(sequence, { close: () => sequence.reset() });
  }

  /** Grows the reused input buffers to hold `n` new ids and `total` positions. */
  private reserve(n: number, total: number): void {
    if (n > this.ids.length) {
      this.ids = new BigInt64Array(n * 2);
      this.positions = new BigInt64Array(n * 2);
    }
    if (total > this.mask.length) this.mask = new BigInt64Array(total * 2).fill(1n);
  }

  private emptyPast(): Tensor {
    const data = this.shape.kvType === 'float16' ? new Uint16Array(0) : new Float32Array(0);
    return new Tensor(this.shape.kvType, data, [1, this.shape.kvHeads, 0, this.shape.headDim]);
  }

  private disposePast(): void {
    for (const t of Object.values(this.past)) if (t.location === 'gpu-buffer') t.dispose();
  }

  private async onDevice<T>(work: () => Promise<T>): Promise<T> {
    const lost = () => new EngineError('device_lost', 'the GPU device was lost; load the model again');
    if (this.deviceLost) throw lost();
    try {
      return await work();
    } catch (e) {
      throw this.deviceLost ? lost() : e;
    }
  }
}

/** A [batch, heads, seq, dim] key/value tensor cut to its first `n` positions, on the CPU. */
async function keepPositions(tensor: Tensor, n: number): Promise<Tensor> {
  const [batch, heads, seq, dim] = tensor.dims as [number, number, number, number];
  const data = (tensor.location === 'gpu-buffer' ? await tensor.getData() : tensor.data) as Float32Array | Uint16Array;
  const out = new (data.constructor as Float32ArrayConstructor | Uint16ArrayConstructor)(batch * heads * n * dim);
  for (let row = 0; row < batch * heads; row++) out.set(data.subarray(row * seq * dim, row * seq * dim + n * dim), row * n * dim);
  return new Tensor(tensor.type as 'float32', out as Float32Array, [batch, heads, n, dim]);
}
