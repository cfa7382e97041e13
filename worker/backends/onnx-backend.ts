/**
 * The `onnx` backend: a transformers.js causal LM whose forward pass we drive ourselves (its
 * generate() ignores top_p), one token at a time, with its past key/values kept between calls.
 * onnxruntime-node in Node; onnxruntime-web on WebGPU or WASM in the browser.
 *
 * Invariant: `cache` holds exactly `length` positions; replaced GPU tensors are disposed. A
 * rollback (`truncate`) slices every past key/value along the sequence axis (GPU tensors are read
 * back once for it: a rollback is rare, a re-prefill of the kept prefix would cost far more).
 */
import { AutoModelForCausalLM, DynamicCache, env, Tensor, type PreTrainedModel } from '@huggingface/transformers';
import type { LoadProgress, OnnxDevice } from '../../src/engine/contract';
import { EngineError } from '../../src/engine/errors';
import { isSoftwareAdapterInfo } from '../../src/engine/model-fit';
import type { BackendLoadContext, LogitsBackend } from './backend';

export interface OnnxEnvironment {
  /** Base (URL or directory) under which local model folders live. */
  localModelPath: string;
  /** Browser only: where onnxruntime-web's wasm files are served (never a CDN). */
  wasmBase?: string;
  /** Whether remote (hub) models may be fetched. */
  allowRemote: boolean;
}

type TjsDevice = 'webgpu' | 'wasm' | 'cpu';

export async function createOnnxBackend(ctx: BackendLoadContext, environment: OnnxEnvironment): Promise<LogitsBackend> {
  const { entry } = ctx;
  if (!entry.path || !entry.dtype) throw new EngineError('load_failed', `model ${entry.id} has no onnx path/dtype`);
  configureEnvironment(environment, !!entry.remote);
  const device = await chooseDevice(ctx.options.device ?? 'auto');
  if (device === 'webgpu') await checkGpuFeatures(entry.requiredFeatures);
  const progress = progressAggregator(ctx.onProgress);
  let model: PreTrainedModel;
  try {
    model = await AutoModelForCausalLM.from_pretrained(entry.path, {
      device,
      dtype: entry.dtype,
      local_files_only: !entry.remote,
      progress_callback: progress,
    });
  } catch (e) {
    throw new EngineError('load_failed', `could not load ${entry.id} on ${device}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return new OnnxBackend(model, device);
}

class OnnxBackend implements LogitsBackend {
  readonly kind = 'logits';
  private cache: DynamicCache | null = null;
  private length = 0;
  private deviceLost = false;

  constructor(
    private readonly model: PreTrainedModel,
    readonly device: TjsDevice,
  ) {
    if (device === 'webgpu') void this.watchDevice();
  }

  async step(ids: readonly number[], pick: (logits: Float32Array) => number): Promise<number> {
    const n = ids.length;
    const total = this.length + n;
    const inputs: Record<string, unknown> = {
      input_ids: new Tensor('int64', BigInt64Array.from(ids, BigInt), [1, n]),
      attention_mask: new Tensor('int64', new BigInt64Array(total).fill(1n), [1, total]),
      position_ids: new Tensor('int64', BigInt64Array.from({ length: n }, (_, i) => BigInt(this.length + i)), [1, n]),
      num_logits_to_keep: new Tensor('int64', BigInt64Array.of(1n), []),
    };
    if (this.cache) inputs.past_key_values = this.cache;
    const out = await this.onDevice(async () => (await this.model.forward(inputs)) as Record<string, Tensor>);
    const present: Record<string, Tensor> = {};
    for (const [name, tensor] of Object.entries(out)) {
      if (name.startsWith('present.')) present[`past_key_values.${name.slice('present.'.length)}`] = tensor;
    }
    if (this.cache) this.cache.update(present);
    else this.cache = new DynamicCache(present);
    this.length = total;
    const logits = out.logits!;
    const vocab = logits.dims[logits.dims.length - 1]!;
    const data = logits.data as Float32Array;
    // Own copy of the last position: the sampler and processors modify it in place.
    return pick(data.slice(data.length - vocab));
  }

  async truncate(n: number): Promise<void> {
    const cache = this.cache;
    if (!cache || n >= this.length) return;
    if (n <= 0) return this.reset();
    const kept: Record<string, Tensor> = {};
    await this.onDevice(async () => {
      for (const [name, tensor] of Object.entries(cache as unknown as Record<string, Tensor>)) kept[name] = await keepPositions(tensor, n);
    });
    await cache.dispose();
    this.cache = new DynamicCache(kept);
    this.length = n;
  }

  async reset(): Promise<void> {
    const cache = this.cache;
    this.cache = null;
    this.length = 0;
    await cache?.dispose();
  }

  async dispose(): Promise<void> {
    await this.reset().catch(() => {});
    await this.model.dispose();
  }

  /** Runs work that touches the device; once the device is lost, every failure is `device_lost`. */
  private async onDevice<T>(work: () => Promise<T>): Promise<T> {
    const lost = () => new EngineError('device_lost', 'the GPU device was lost; load the model again');
    if (this.deviceLost) throw lost();
    try {
      return await work();
    } catch (e) {
      throw this.deviceLost ? lost() : e;
    }
  }

  private async watchDevice(): Promise<void> {
    const device = await webgpuDevice();
    if (!device) return;
    await device.lost;
    this.deviceLost = true;
  }
}

/** A [batch, heads, seq, dim] key/value tensor cut to its first `n` positions, on the CPU. */
async function keepPositions(tensor: Tensor, n: number): Promise<Tensor> {
  const [batch, heads, seq, dim] = tensor.dims as [number, number, number, number];
  const ort = tensor.ort_tensor as { location: string; getData(): Promise<ArrayLike<number>> };
  const data = (ort.location === 'gpu-buffer' ? await ort.getData() : tensor.data) as Float32Array | Uint16Array;
  const out = new (data.constructor as Float32ArrayConstructor | Uint16ArrayConstructor)(batch * heads * n * dim);
  for (let row = 0; row < batch * heads; row++) out.set(data.subarray(row * seq * dim, row * seq * dim + n * dim), row * n * dim);
  return new Tensor(tensor.type as 'float32', out as Float32Array, [batch, heads, n, dim]);
}

/** onnxruntime-web's WebGPU device, once a WebGPU session exists (a browser test destroys it to test device loss). */
export async function webgpuDevice(): Promise<GPUDevice | undefined> {
  const webgpu = (env.backends.onnx as { webgpu?: { device?: GPUDevice | Promise<GPUDevice> } }).webgpu;
  return webgpu?.device ? await webgpu.device : undefined;
}

function configureEnvironment(environment: OnnxEnvironment, remote: boolean): void {
  env.allowLocalModels = true;
  env.localModelPath = environment.localModelPath;
  env.allowRemoteModels = remote && environment.allowRemote;
  const wasm = (env.backends.onnx as { wasm?: { wasmPaths?: unknown; numThreads?: number } }).wasm;
  if (wasm && environment.wasmBase) {
    wasm.wasmPaths = {
      mjs: `${environment.wasmBase}ort-wasm-simd-threaded.asyncify.mjs`,
      wasm: `${environment.wasmBase}ort-wasm-simd-threaded.asyncify.wasm`,
    };
  }
  // Import onnxruntime's WASM factory from its URL as shipped. (transformers.js would otherwise fetch
  // it, patch its text and import it from a blob: URL, which a host page's CSP refuses unless its
  // script-src allows blob:; the browser's HTTP cache still keeps the files.)
  env.useWasmCache = false;
}

/** Where to run: Node → cpu; `auto` → WebGPU on a real GPU, else WASM. */
async function chooseDevice(requested: OnnxDevice): Promise<TjsDevice> {
  const isNode = typeof process !== 'undefined' && process.versions?.node !== undefined;
  if (isNode) {
    if (requested === 'webgpu' || requested === 'wasm') {
      throw new EngineError('invalid_request', `device "${requested}" is for browsers; in Node the onnx backend runs on the CPU`);
    }
    return 'cpu';
  }
  if (requested === 'cpu') throw new EngineError('invalid_request', 'device "cpu" is Node only; use "wasm" in a browser');
  if (requested === 'wasm') return 'wasm';
  const adapter = await navigator.gpu?.requestAdapter().catch(() => null);
  if (requested === 'webgpu' && !adapter) {
    throw new EngineError('webgpu_unavailable', 'WebGPU is not available in this browser (no adapter); use the WASM device');
  }
  if (requested === 'webgpu') return 'webgpu';
  // "auto": a real GPU, else WASM — a software WebGPU adapter is correct but far slower than WASM.
  return adapter && !isSoftwareAdapterInfo(adapter.info ?? {}) ? 'webgpu' : 'wasm';
}

async function checkGpuFeatures(required: readonly string[]): Promise<void> {
  if (required.length === 0) return;
  const adapter = await navigator.gpu?.requestAdapter();
  const missing = required.filter((f) => !adapter?.features.has(f));
  if (missing.includes('shader-f16')) {
    throw new EngineError('shader_f16_unsupported', 'this GPU lacks shader-f16, which these weights need; choose a q4f32 or fp32 model');
  }
  if (missing.length > 0) throw new EngineError('load_failed', `this GPU lacks ${missing.join(', ')}`);
}

/** transformers.js reports per file; the UI wants bytes over all files. */
function progressAggregator(onProgress: (p: LoadProgress) => void) {
  const files = new Map<string, { loaded: number; total: number }>();
  return (info: { status: string; file?: string; loaded?: number; total?: number }) => {
    if (info.status === 'progress' && info.file) {
      files.set(info.file, { loaded: info.loaded ?? 0, total: info.total ?? 0 });
    } else if (info.status !== 'done' && info.status !== 'ready') {
      return;
    }
    let loadedBytes = 0;
    let totalBytes = 0;
    for (const f of files.values()) {
      loadedBytes += f.loaded;
      totalBytes += f.total;
    }
    onProgress({ loadedBytes, totalBytes, text: info.status === 'ready' ? 'ready' : `loading ${info.file ?? ''}`.trim() });
  };
}
