// Test page: the backend conformance checks against the onnx backend on onnxruntime-web (WASM or
// WebGPU), served by an engine on this page's thread; plus a lost WebGPU device, as a driver reset.
import type { LoadedModelInfo, OnnxDevice } from '../../../src/engine/contract';
import { MODELS } from '../../../src/engine/models';
import { createOnnxBackend, webgpuDevice } from '../../../worker/backends/onnx-backend';
import { Engine } from '../../../worker/engine';
import { browserGrammars } from '../../../worker/grammar/browser-grammars';
import { CHECKS, type ConformanceSubject } from '../../conformance/backend-checks';
import { failableFactory } from '../../conformance/failable';

declare global {
  interface Window {
    loadSubject: (device: OnnxDevice, decode: number) => Promise<LoadedModelInfo>;
    runCheck: (name: string) => Promise<string | null>;
    checkNames: string[];
    loseDevice: () => Promise<void>;
    subject: ConformanceSubject & { engine: Engine };
    ready: boolean;
  }
}

const here = (path: string) => new URL(path, location.href).href;

window.checkNames = Object.keys(CHECKS);

window.loadSubject = async (device, decode) => {
  const factory = failableFactory((ctx) => createOnnxBackend(ctx, { localModelPath: here('/models/'), wasmBase: here('/ort/'), allowRemote: false }));
  const engine = new Engine({
    models: MODELS,
    createBackend: factory.create,
    capabilities: async () => ({ webgpu: true, shaderF16: false, adapter: null, limits: null }),
    grammars: browserGrammars(() => here('/models/')),
  });
  const info = await engine.load('tiny-llama', { device });
  window.subject = { engine, kind: 'logits', canTruncate: true, failNext: () => factory.last().failNext(), decode };
  return info;
};

/** Runs one check: null when it passed, else its failure in words. */
window.runCheck = async (name) => {
  try {
    await CHECKS[name]!(window.subject);
    return null;
  } catch (e) {
    return e instanceof Error ? `${e.message}\n${e.stack ?? ''}` : String(e);
  }
};

window.loseDevice = async () => {
  const device = await webgpuDevice();
  if (!device) throw new Error('no WebGPU device: load on webgpu first');
  device.destroy();
  await device.lost;
};

window.ready = true;
