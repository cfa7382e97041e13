import { describe, expect, it } from 'vitest';
import type { GpuCapabilities } from '../engine/contract';
import { MODELS } from '../engine/models';
import { gpuMemoryLine, modelChoices } from './model-choices';

const gpu = (over: Partial<GpuCapabilities> = {}): GpuCapabilities => ({
  webgpu: true,
  shaderF16: true,
  adapter: { vendor: 'nvidia', architecture: 'ampere', description: 'RTX 3080' },
  limits: { maxBufferSize: 2 ** 31, maxStorageBufferBindingSize: 2 ** 31 },
  ...over,
});

describe('modelChoices', () => {
  const cases: Record<string, { caps: GpuCapabilities; memory?: number; defaultId: RegExp; explains: RegExp | null }> = {
    'a big GPU with f16: Llama 3.1 8B q4f16': { caps: gpu(), memory: 8, defaultId: /^Llama-3\.1-8B-Instruct-q4f16_1-MLC$/, explains: null },
    'no shader-f16: Llama 3.1 8B q4f32': { caps: gpu({ shaderF16: false }), memory: 8, defaultId: /^Llama-3\.1-8B-Instruct-q4f32_1-MLC$/, explains: null },
    'an integrated GPU with 8 GB shared: a Llama 3.2 model, with the reason': {
      caps: gpu({ adapter: { vendor: 'intel', architecture: 'gen-12lp', description: 'Intel Iris Xe' } }),
      memory: 8,
      defaultId: /^Llama-3\.2-3B/,
      explains: /Llama 3\.1 8B Instruct \(q4f16\) will not run here: needs about 4\.9 GB/,
    },
    'no WebGPU: a model that runs anywhere': {
      caps: { webgpu: false, shaderF16: false, adapter: null, limits: null, reason: 'navigator.gpu is missing' },
      defaultId: /.+/,
      explains: /will not run here: navigator\.gpu is missing/,
    },
    'a software renderer (SwiftShader)': {
      caps: gpu({ shaderF16: false, adapter: { vendor: 'google', architecture: 'swiftshader', description: 'SwiftShader' } }),
      memory: 8,
      defaultId: /.+/,
      explains: /software renderer/,
    },
  };
  for (const [name, { caps, memory, defaultId, explains }] of Object.entries(cases)) {
    it(name, () => {
      const c = modelChoices(MODELS, caps, memory === undefined ? {} : { deviceMemoryGB: memory });
      expect(c.defaultId).toMatch(defaultId);
      if (explains) expect(c.explanation.join(' ')).toMatch(explains);
      else expect(c.explanation).toEqual([]);
      expect(c.choices.map((x) => x.id).sort()).toEqual(MODELS.map((m) => m.id).sort());
      expect(c.choices.find((x) => x.id === 'tiny-llama')?.text).toMatch(/test model/);
    });
  }

  it('where nothing real fits, the default is not a webllm model and the page says why', () => {
    const c = modelChoices(MODELS, { webgpu: false, shaderF16: false, adapter: null, limits: null, reason: 'no adapter' });
    const chosen = MODELS.find((m) => m.id === c.defaultId)!;
    expect(chosen.test || chosen.demo).toBe(true);
    expect(c.report[0]).toBe('WebGPU: no — no adapter');
  });

  it('every model that will not fit carries its reason', () => {
    const c = modelChoices(MODELS, gpu({ shaderF16: false }), { deviceMemoryGB: 4 });
    for (const x of c.choices.filter((x) => x.group === 'no')) expect(x.fit.reason.length).toBeGreaterThan(10);
  });
});

describe('the GPU-memory line', () => {
  const adapter = (description: string) => ({ webgpu: true, shaderF16: true, adapter: { vendor: '', architecture: '', description }, limits: null });
  const cases: Record<string, { caps: Parameters<typeof gpuMemoryLine>[0]; hints: { deviceMemoryGB?: number }; line: string }> = {
    'a software renderer has no GPU memory, whatever system memory there is': {
      caps: adapter('SwiftShader Device (Subzero)'),
      hints: { deviceMemoryGB: 16 },
      line: 'GPU memory: none — no GPU here; WebGPU runs on the CPU (a software renderer)',
    },
    'no WebGPU': { caps: { webgpu: false, shaderF16: false, adapter: null, limits: null }, hints: { deviceMemoryGB: 8 }, line: 'GPU memory: none in use (no WebGPU)' },
    'a real GPU: an estimate, with its source': {
      caps: adapter('NVIDIA GeForce RTX 4070'),
      hints: { deviceMemoryGB: 8 },
      line: 'GPU memory (estimate): about 8 GB — from the 8 GB of system memory the browser reports (navigator.deviceMemory), not a measurement',
    },
    'a real GPU, nothing reported': { caps: adapter('NVIDIA GeForce RTX 4070'), hints: {}, line: 'GPU memory: unknown — browsers do not report it; models are assumed to fit' },
  };
  for (const [name, c] of Object.entries(cases)) it(name, () => expect(gpuMemoryLine(c.caps, c.hints)).toBe(c.line));
});
