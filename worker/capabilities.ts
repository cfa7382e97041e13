import type { GpuCapabilities } from '../src/engine/contract';

/**
 * WASM threads: every core onnxruntime-web may use (up to 4) when the page is cross-origin isolated
 * (SharedArrayBuffer); one otherwise. (Its own default is half the cores: one on a 2-core laptop.)
 */
export function wasmThreads(): { threads: number; crossOriginIsolated: boolean } {
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
  const cores = (globalThis.navigator as { hardwareConcurrency?: number } | undefined)?.hardwareConcurrency ?? 1;
  return { threads: isolated ? Math.max(1, Math.min(4, cores)) : 1, crossOriginIsolated: isolated };
}

/** What the browser offers: WebGPU (enough for the UI to recommend a model and explain why) and WASM threads. */
export async function detectCapabilities(): Promise<GpuCapabilities> {
  return { ...(await detectGpu()), wasm: wasmThreads() };
}

async function detectGpu(): Promise<GpuCapabilities> {
  const gpu = (globalThis.navigator as Navigator | undefined)?.gpu;
  if (!gpu) return none('This browser has no WebGPU (navigator.gpu is missing). Try a recent Chrome or Edge, or the WASM device.');
  let adapter: GPUAdapter | null = null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (e) {
    return none(`WebGPU is present but no adapter could be requested (${e instanceof Error ? e.message : String(e)}).`);
  }
  if (!adapter) return none('WebGPU is present but offered no GPU adapter (blocklisted driver or disabled GPU).');
  const info = adapter.info;
  return {
    webgpu: true,
    shaderF16: adapter.features.has('shader-f16'),
    adapter: { vendor: info?.vendor ?? '', architecture: info?.architecture ?? '', description: info?.description ?? '' },
    limits: { maxBufferSize: adapter.limits.maxBufferSize, maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize },
  };
}

function none(reason: string): GpuCapabilities {
  return { webgpu: false, shaderF16: false, adapter: null, limits: null, reason };
}
