/**
 * Which models this machine can run, and which to recommend. WebGPU does not report VRAM, so the
 * budget is an estimate: the device memory the browser admits (navigator.deviceMemory, capped at
 * 8 GB by browsers) for integrated GPUs, which share it, and "probably enough" for discrete ones.
 * Every verdict carries a reason in plain words.
 */
import type { GpuCapabilities } from './contract';
import type { ModelEntry } from './model-list';

export type FitStatus = 'ok' | 'maybe' | 'no';

export interface ModelFit {
  model: ModelEntry;
  status: FitStatus;
  reason: string;
}

export interface MachineHints {
  /** navigator.deviceMemory, in GB (browsers round and cap it). */
  deviceMemoryGB?: number;
}

const SOFTWARE_ADAPTER = /swiftshader|llvmpipe|software|basic render/i;
const INTEGRATED = /intel|integrated|apple|mali|adreno|uhd|iris|gen-?\d/i;

export function isSoftwareAdapter(caps: GpuCapabilities): boolean {
  return !!caps.adapter && isSoftwareAdapterInfo(caps.adapter);
}

/** SwiftShader, llvmpipe and friends: WebGPU emulated on the CPU (correct, far slower than WASM). */
export function isSoftwareAdapterInfo(info: { vendor?: string; architecture?: string; description?: string }): boolean {
  return SOFTWARE_ADAPTER.test(`${info.vendor ?? ''} ${info.architecture ?? ''} ${info.description ?? ''}`);
}

/** Estimated GPU memory budget in MB, or null when nothing can be said. */
export function vramBudgetMB(caps: GpuCapabilities, hints: MachineHints): number | null {
  const a = caps.adapter;
  if (!a) return null;
  const integrated = INTEGRATED.test(`${a.vendor} ${a.architecture} ${a.description}`);
  if (hints.deviceMemoryGB === undefined) return null;
  // Integrated GPUs share system memory: assume about half is usable for weights and cache.
  return Math.round(hints.deviceMemoryGB * 1024 * (integrated ? 0.5 : 1));
}

export function assessModel(model: ModelEntry, caps: GpuCapabilities, hints: MachineHints = {}): ModelFit {
  const fit = (status: FitStatus, reason: string): ModelFit => ({ model, status, reason });
  if (model.test) return fit('ok', 'test model: runs anywhere (WebGPU or WASM), emits noise');
  if (model.demo) return fit('ok', 'runs anywhere (WebGPU or WASM); knows only its small synthetic world');
  if (model.backend === 'remote') return fit('ok', 'runs on its engine server: nothing is downloaded to this device');
  if (model.backend === 'llamacpp') return fit('no', 'a GGUF file runs with node-llama-cpp in Node (the CLI), not in a browser');
  if (!caps.webgpu) return fit('no', caps.reason ?? 'WebGPU is not available');
  const missing = model.requiredFeatures.filter((f) => !(f === 'shader-f16' && caps.shaderF16));
  if (missing.includes('shader-f16')) return fit('no', 'this GPU lacks shader-f16, which these weights need: pick the q4f32 variant');
  if (missing.length > 0) return fit('no', `this GPU lacks ${missing.join(', ')}`);
  if (isSoftwareAdapter(caps)) return fit('no', 'WebGPU runs on a software renderer here (no real GPU): far too slow for this model');
  const budget = vramBudgetMB(caps, hints);
  const need = `needs about ${(model.vramMB / 1024).toFixed(1)} GB of GPU memory`;
  if (budget === null) return fit('maybe', `${need}; this browser does not say how much there is`);
  if (model.vramMB <= budget * 0.8) return fit('ok', `${need}; about ${(budget / 1024).toFixed(0)} GB estimated available`);
  if (model.vramMB <= budget) return fit('maybe', `${need}; tight on an estimated ${(budget / 1024).toFixed(0)} GB`);
  return fit('no', `${need}; only about ${(budget / 1024).toFixed(0)} GB estimated available`);
}

/** Preference: Llama 3.1 over 3.2, then the bigger model (by GB of weights), the longer context, the smaller footprint. */
const PREFERENCE = (m: ModelEntry): number =>
  (m.family === 'llama-3.1' ? 3 : m.family === 'llama-3.2' ? 2 : 0) * 1e12 + Math.round(m.sizeBytes / 1e9) * 1e9 + m.contextWindow * 1e3 - m.vramMB;

/**
 * The model to pre-select: the best tool-capable model that fits ("ok" before "maybe"), else the
 * demo model; never the random test model or a Llama 3.0 checkpoint.
 */
export function recommendModel(fits: readonly ModelFit[]): ModelFit | undefined {
  const candidates = fits.filter((f) => f.model.toolCalling && !f.model.test && f.status !== 'no');
  const best = (status: FitStatus) =>
    candidates.filter((f) => f.status === status && !f.model.demo).sort((a, b) => PREFERENCE(b.model) - PREFERENCE(a.model))[0];
  return best('ok') ?? best('maybe') ?? candidates.find((f) => f.model.demo) ?? fits.find((f) => f.model.test);
}
