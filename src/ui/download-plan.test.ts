import { describe, expect, it } from 'vitest';
import type { ModelFit } from '../engine/model-fit';
import { MODELS } from '../engine/models';
import { downloadQuestion, modelHosts } from './download-plan';

const fit = (id: string, status: ModelFit['status'] = 'ok', reason = 'fits'): ModelFit => ({ model: MODELS.find((m) => m.id === id)!, status, reason });

describe('downloadQuestion', () => {
  it('asks before a big download, with the size, the hosts and a time estimate', () => {
    const q = downloadQuestion(fit('Llama-3.2-1B-Instruct-q4f32_1-MLC'), false)!;
    expect(q).toMatchObject({ title: 'Download 760 MB?', strong: false, confirmLabel: 'Download 760 MB and load' });
    expect(q.lines.join(' ')).toMatch(/760 MB download from huggingface\.co and raw\.githubusercontent\.com\. About 2 min 2 s at 50 Mbit\/s, about 12 s at 500 Mbit\/s/);
  });

  it("uses the browser's own estimate of the connection when it has one", () => {
    const q = downloadQuestion(fit('Llama-3.1-8B-Instruct-q4f16_1-MLC'), false, 10)!;
    expect(q.lines.join(' ')).toContain("About 1 h at 10 Mbit/s (this browser's estimate");
  });

  it('is stronger when the page said the model will not run well here', () => {
    const q = downloadQuestion(fit('Llama-3.1-8B-Instruct-q4f32_1-MLC', 'no', 'WebGPU runs on a software renderer here (no real GPU): far too slow for this model'), false)!;
    expect(q.strong).toBe(true);
    expect(q.title).toBe('Llama 3.1 8B Instruct (q4f32) will not run well here');
    expect(q.confirmLabel).toBe('Download 4.9 GB anyway');
    expect(q.lines[0]).toContain('far too slow for this model');
  });

  it('mentions a doubtful fit', () => {
    expect(downloadQuestion(fit('Llama-3.2-3B-Instruct-q4f16_1-MLC', 'maybe', 'tight on an estimated 2 GB'), false)!.lines[0]).toBe('It might not run here: tight on an estimated 2 GB.');
  });

  const silent: Record<string, { id: string; cached: boolean }> = {
    'a model already in the cache': { id: 'Llama-3.2-1B-Instruct-q4f32_1-MLC', cached: true },
    'a model served by this site (micro)': { id: 'micro-llama', cached: false },
    'the test model': { id: 'tiny-llama', cached: false },
  };
  for (const [name, { id, cached }] of Object.entries(silent)) it(`does not ask for ${name}`, () => expect(downloadQuestion(fit(id), cached)).toBeNull());

  it('knows where each kind of model comes from', () => {
    expect(modelHosts(MODELS.find((m) => m.id === 'onnx-community/Llama-3.2-1B-Instruct')!)).toEqual(['huggingface.co']);
    expect(modelHosts(MODELS.find((m) => m.id === 'micro-llama')!)).toEqual([]);
  });
});
