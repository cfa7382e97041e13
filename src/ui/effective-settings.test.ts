import { describe, expect, it } from 'vitest';
import type { LoadedModelInfo } from '../engine/contract';
import { effectiveSettings } from './effective-settings';
import { DEFAULT_SETTINGS } from './settings';

const info = (contextWindow: number, sampling = {}): LoadedModelInfo => ({ modelId: 'm', backend: 'onnx', contextWindow, toolCalling: true, device: 'wasm', sampling });
const row = (rows: ReturnType<typeof effectiveSettings>, label: string) => rows.find((r) => r.label === label)!;

describe('effectiveSettings', () => {
  it("the micro model's greedy decoding and its 1,024-token context show as what runs, overriding the user's values", () => {
    const rows = effectiveSettings(DEFAULT_SETTINGS, info(1024, { temperature: 0 }), 'Micro Llama (offline demo)');
    expect(row(rows, 'Temperature')).toEqual({ label: 'Temperature', value: '0', source: "Micro Llama (offline demo)'s own setting", overridden: true });
    expect(row(rows, 'Top-p')).toEqual({ label: 'Top-p', value: '0.9', source: 'your setting', overridden: false });
    expect(row(rows, 'Tokens per step')).toEqual({ label: 'Tokens per step', value: '256', source: '1/4 of the 1,024-token context (your setting: 1024)', overridden: true });
    expect(row(rows, 'Context window').value).toBe('1,024 tokens');
  });

  it("a model without overrides runs the user's settings", () => {
    const rows = effectiveSettings({ ...DEFAULT_SETTINGS, temperature: 0.8 }, info(4096), 'Tiny');
    expect(rows.filter((r) => r.overridden)).toEqual([]);
    expect(row(rows, 'Temperature').value).toBe('0.8');
    expect(row(rows, 'Tokens per step').value).toBe('1024');
  });

  it('before any model is loaded, the settings as they are', () => {
    const rows = effectiveSettings(DEFAULT_SETTINGS, null, '');
    expect(rows.map((r) => r.label)).toEqual(['Temperature', 'Top-p', 'Top-k', 'Min-p', 'Tokens per step', 'Max steps']);
  });
});
