import { describe, expect, it } from 'vitest';
import type { GpuCapabilities } from './contract';
import { assessModel, recommendModel, type MachineHints } from './model-fit';
import { MODELS } from './models';

const gpu = (over: Partial<GpuCapabilities> & { description?: string } = {}): GpuCapabilities => ({
  webgpu: true,
  shaderF16: true,
  adapter: { vendor: 'nvidia', architecture: 'ampere', description: over.description ?? 'NVIDIA GeForce RTX 3060' },
  limits: { maxBufferSize: 2 ** 31, maxStorageBufferBindingSize: 2 ** 31 },
  ...over,
});
const model = (id: string) => MODELS.find((m) => m.id === id)!;

describe('assessModel', () => {
  const cases: Record<string, { id: string; caps: GpuCapabilities; hints?: MachineHints; status: string; reason: RegExp }> = {
    'no WebGPU': { id: 'Llama-3.2-1B-Instruct-q4f32_1-MLC', caps: { webgpu: false, shaderF16: false, adapter: null, limits: null, reason: 'no navigator.gpu' }, status: 'no', reason: /navigator.gpu/ },
    'q4f16 without shader-f16': { id: 'Llama-3.1-8B-Instruct-q4f16_1-MLC', caps: gpu({ shaderF16: false }), hints: { deviceMemoryGB: 32 }, status: 'no', reason: /q4f32/ },
    'q4f32 without shader-f16 fits': { id: 'Llama-3.1-8B-Instruct-q4f32_1-MLC', caps: gpu({ shaderF16: false }), hints: { deviceMemoryGB: 16 }, status: 'ok', reason: /6\.0 GB/ },
    'software adapter': { id: 'Llama-3.2-1B-Instruct-q4f32_1-MLC', caps: gpu({ adapter: { vendor: 'google', architecture: 'swiftshader', description: 'SwiftShader Device' } }), status: 'no', reason: /software renderer/ },
    'integrated GPU, 8 GB shared: 8B does not fit': { id: 'Llama-3.1-8B-Instruct-q4f16_1-MLC', caps: gpu({ adapter: { vendor: 'intel', architecture: 'gen-12lp', description: 'Intel Iris Xe' } }), hints: { deviceMemoryGB: 8 }, status: 'no', reason: /4 GB estimated/ },
    'integrated GPU, 8 GB shared: 1B fits': { id: 'Llama-3.2-1B-Instruct-q4f16_1-MLC', caps: gpu({ adapter: { vendor: 'intel', architecture: 'gen-12lp', description: 'Intel Iris Xe' } }), hints: { deviceMemoryGB: 8 }, status: 'ok', reason: /0\.9 GB/ },
    'unknown memory: maybe': { id: 'Llama-3.1-8B-Instruct-q4f16_1-MLC', caps: gpu(), status: 'maybe', reason: /does not say/ },
    'test model runs anywhere': { id: 'tiny-llama', caps: { webgpu: false, shaderF16: false, adapter: null, limits: null }, status: 'ok', reason: /noise/ },
  };
  for (const [name, { id, caps, hints, status, reason }] of Object.entries(cases)) {
    it(name, () => {
      const fit = assessModel(model(id), caps, hints);
      expect(fit.status).toBe(status);
      expect(fit.reason).toMatch(reason);
    });
  }
});

describe('recommendModel', () => {
  const recommend = (caps: GpuCapabilities, hints?: MachineHints) => recommendModel(MODELS.map((m) => assessModel(m, caps, hints)))?.model.id;
  it('a big discrete GPU with shader-f16 gets Llama 3.1 8B q4f16', () => expect(recommend(gpu(), { deviceMemoryGB: 32 })).toBe('Llama-3.1-8B-Instruct-q4f16_1-MLC'));
  it('without shader-f16 it gets the q4f32 variant', () => expect(recommend(gpu({ shaderF16: false }), { deviceMemoryGB: 32 })).toBe('Llama-3.1-8B-Instruct-q4f32_1-MLC'));
  it('a small integrated GPU gets Llama 3.2 3B', () =>
    expect(recommend(gpu({ adapter: { vendor: 'intel', architecture: 'gen-12lp', description: 'Intel Iris Xe' } }), { deviceMemoryGB: 8 })).toBe('Llama-3.2-3B-Instruct-q4f16_1-MLC'));
  it('never Llama 3.0, and never the test model when anything else runs', () => {
    const id = recommend(gpu(), { deviceMemoryGB: 32 });
    expect(id).not.toMatch(/Llama-3-8B|tiny/);
  });
  it('no WebGPU at all: the offline demo model if present, else the test model', () => {
    const id = recommend({ webgpu: false, shaderF16: false, adapter: null, limits: null });
    const demo = MODELS.find((m) => m.demo);
    expect(id).toBe(demo ? demo.id : 'tiny-llama');
  });
});
