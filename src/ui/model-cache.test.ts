import { describe, expect, it } from 'vitest';
import { MODELS } from '../engine/models';
import { completeCachedIds, type CachedModel } from './model-cache';

const base = 'http://127.0.0.1:5173/models/';
const entry = (id: string, share: number): CachedModel => {
  const m = MODELS.find((x) => x.id === id)!;
  return { key: m.backend === 'webllm' ? m.modelUrl : `${base}${m.backend === 'onnx' ? m.path : m.id}/`, labels: [m.label], bytes: Math.round(m.sizeBytes * share), files: 3 };
};

describe('completeCachedIds', () => {
  it('a model whose files are all cached counts; an interrupted download does not', () => {
    const ids = completeCachedIds(MODELS, [entry('Llama-3.2-1B-Instruct-q4f32_1-MLC', 1.01), entry('Llama-3.2-3B-Instruct-q4f16_1-MLC', 0.3), entry('tiny-llama', 1.005)], base);
    expect([...ids].sort()).toEqual(['Llama-3.2-1B-Instruct-q4f32_1-MLC', 'tiny-llama']);
  });

  it('nothing cached, nothing complete', () => {
    expect(completeCachedIds(MODELS, [], base).size).toBe(0);
  });
});
