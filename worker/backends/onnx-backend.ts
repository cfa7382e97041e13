/**
 * The `onnx` backend's loading: transformers.js finds, downloads and opens the model (onnxruntime-node
 * in Node; onnxruntime-web on WebGPU or WASM in the browser); its session's forward pass is ours
 * (onnx-session.ts: its generate() ignores top_p, and its per-token wrappers cost).
 */
import { AutoModelForCausalLM, env, type PreTrainedModel } from '@huggingface/transformers';
import type { LoadProgress, OnnxDevice } from '../../src/engine/contract';
import { EngineError } from '../../src/engine/errors';
import { isSoftwareAdapterInfo } from '../../src/engine/model-fit';
import { wasmThreads } from '../capabilities';
import { IN_NODE } from '../in-node';
import type { BackendLoadContext, LogitsBackend } from './backend';
import type { ModelConfig, NodeSession } from './onnx-local-open';
import { OnnxSessionBackend, type OnnxShape, type OrtSession } from './onnx-session';
import { fetchOrtWasmBinary, ORT_WASM_BINARY, ORT_WASM_MODULE } from './ort-wasm-binary';

export interface OnnxEnvironment {
  /** Base (URL or directory) under which local model folders live. */
  localModelPath: string;
  /** Browser only: where onnxruntime-web's runtime is served (its module and its gzipped WASM, ort-wasm-binary.ts; never a CDN). */
  wasmBase?: string;
  /** Whether remote (hub) models may be fetched. */
  allowRemote: boolean;
  /** Browser only: WASM threads (default: wasmThreads(), every core up to 4 when cross-origin isolated). Fixed at the first session. */
  wasmThreads?: number;
  /** Node: opens a local model folder itself (onnx-node-session.ts), instead of transformers.js's loader. */
  openLocal?: (dir: string, dtype: string) => Promise<NodeSession>;
}

type TjsDevice = 'webgpu' | 'wasm' | 'cpu';

export async function createOnnxBackend(ctx: BackendLoadContext, environment: OnnxEnvironment): Promise<LogitsBackend> {
  const { entry } = ctx;
  if (entry.backend !== 'onnx') throw new EngineError('load_failed', `model ${entry.id} is not an onnx model`);
  await configureEnvironment(environment, !!entry.remote);
  const device = await chooseDevice(ctx.options.device ?? 'auto');
  if (device === 'webgpu') await checkGpuFeatures(entry.requiredFeatures);
  if (environment.openLocal && !entry.remote) {
    let opened: NodeSession;
    try {
      opened = await environment.openLocal(`${environment.localModelPath}${entry.path}`, entry.dtype);
    } catch (e) {
      throw new EngineError('load_failed', `could not load ${entry.id} on ${device}: ${e instanceof Error ? e.message : String(e)}`);
    }
    ctx.onProgress({ loadedBytes: entry.sizeBytes, totalBytes: entry.sizeBytes, text: 'ready' });
    return new OnnxSessionBackend(opened.session, onnxShape(opened.config, opened.session, entry.dtype), device, PREFILL_CHUNK[device], opened.release);
  }
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
  const session = (model as unknown as { sessions: { model: OrtSession & { inputMetadata?: Array<{ name: string; type?: string }> } } }).sessions.model;
  const watchLoss = device === 'webgpu' ? webgpuDevice().then((d) => d?.lost) : undefined;
  const config = model.config as unknown as ModelConfig;
  return new OnnxSessionBackend(session, onnxShape(config, session, entry.dtype), device, PREFILL_CHUNK[device], async () => void (await model.dispose()), watchLoss);
}

/**
 * Ids per prefill step, per device: the attention scores of one step are heads × chunk × context floats,
 * so an unbounded prefill of a long prompt spikes memory (4,000 ids: +730 MiB on the CPU, kept as the
 * runtime's high-water mark). Measured with `npm run bench -- peers` (prefillPeakRssMiB4k).
 */
const PREFILL_CHUNK: Record<TjsDevice, number> = { cpu: 512, wasm: 512, webgpu: 512 };

function onnxShape(c: ModelConfig, session: { inputMetadata?: Array<{ name: string; type?: string }> }, dtype: string): OnnxShape {
  const declared = session.inputMetadata?.find((m) => m.name === 'past_key_values.0.key')?.type;
  const kvType = declared === 'float16' || (declared === undefined && (dtype === 'fp16' || dtype === 'q4f16')) ? 'float16' : 'float32';
  return { layers: c.num_hidden_layers, kvHeads: c.num_key_value_heads ?? c.num_attention_heads, headDim: c.head_dim ?? c.hidden_size / c.num_attention_heads, kvType };
}

/** onnxruntime-web's WebGPU device, once a WebGPU session exists (a browser test destroys it to test device loss). */
export async function webgpuDevice(): Promise<GPUDevice | undefined> {
  const webgpu = (env.backends.onnx as { webgpu?: { device?: GPUDevice | Promise<GPUDevice> } }).webgpu;
  return webgpu?.device ? await webgpu.device : undefined;
}

async function configureEnvironment(environment: OnnxEnvironment, remote: boolean): Promise<void> {
  env.allowLocalModels = true;
  env.localModelPath = environment.localModelPath;
  env.allowRemoteModels = remote && environment.allowRemote;
  const wasm = (env.backends.onnx as { wasm?: { wasmPaths?: unknown; wasmBinary?: ArrayBuffer; numThreads?: number } }).wasm;
  if (wasm && !IN_NODE) wasm.numThreads = environment.wasmThreads ?? wasmThreads().threads;
  if (wasm && environment.wasmBase && !IN_NODE) {
    wasm.wasmPaths = { mjs: `${environment.wasmBase}${ORT_WASM_MODULE}` };
    if (!wasm.wasmBinary) {
      try {
        wasm.wasmBinary = await fetchOrtWasmBinary(`${environment.wasmBase}${ORT_WASM_BINARY}`);
      } catch (e) {
        throw new EngineError('load_failed', e instanceof Error ? e.message : String(e));
      }
    }
  }
  // Import onnxruntime's WASM factory from its URL as shipped. (transformers.js would otherwise fetch
  // it, patch its text and import it from a blob: URL, which a host page's CSP refuses unless its
  // script-src allows blob:; the browser's HTTP cache still keeps the files.)
  env.useWasmCache = false;
}

/** Where to run: Node → cpu; `auto` → WebGPU on a real GPU, else WASM. */
async function chooseDevice(requested: OnnxDevice): Promise<TjsDevice> {
  if (IN_NODE) {
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
