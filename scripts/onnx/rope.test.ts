import { describe, expect, it } from 'vitest';
import type { LlamaConfig } from './llama-config';
import { ropeInvFreq } from './rope';

const base: LlamaConfig = {
  vocab_size: 8,
  hidden_size: 4096,
  intermediate_size: 8,
  num_hidden_layers: 1,
  num_attention_heads: 32,
  num_key_value_heads: 8,
  head_dim: 128,
  rms_norm_eps: 1e-5,
  rope_theta: 500000,
  rope_scaling: null,
  tie_word_embeddings: true,
};
const llama31: LlamaConfig = {
  ...base,
  rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 },
};

describe('ropeInvFreq', () => {
  it('without scaling is theta^(-2i/head_dim)', () => {
    const inv = ropeInvFreq({ ...base, head_dim: 16, rope_theta: 10000 });
    expect(inv).toHaveLength(8);
    expect(inv[0]).toBe(1);
    expect(inv[1]).toBeCloseTo(Math.pow(10000, -2 / 16), 15);
    expect(inv[7]).toBeCloseTo(Math.pow(10000, -14 / 16), 15);
  });

  it('derives head_dim from hidden_size / heads when absent', () => {
    const { head_dim: _omit, ...rest } = base;
    expect(ropeInvFreq(rest)).toHaveLength(64);
  });

  // Llama 3.1 8B (head_dim 128, theta 5e5): wavelength 2π·5e5^(i/64) is < 8192/4 for i ≤ 28 (kept),
  // > 8192/1 for i ≥ 35 (divided by 8), and in between for i = 29..34 (interpolated).
  it('llama3 scaling keeps high, divides low, interpolates the band between', () => {
    const plain = ropeInvFreq(base);
    const scaled = ropeInvFreq(llama31);
    const ratio = Array.from(plain, (p, i) => p / scaled[i]!);
    const kept = ratio.filter((r) => r === 1).length;
    const divided = ratio.filter((r) => Math.abs(r - 8) < 1e-12).length;
    const between = ratio.filter((r) => r > 1 && r < 8 - 1e-12);
    expect([kept, between.length, divided]).toEqual([29, 6, 29]);
    for (let i = 1; i < scaled.length; i++) expect(scaled[i]!).toBeLessThan(scaled[i - 1]!);
    for (let i = 30; i < 35; i++) expect(ratio[i]!).toBeGreaterThan(ratio[i - 1]!);
  });

  it('rejects unknown rope types', () => {
    const bad = { ...base, rope_scaling: { ...llama31.rope_scaling!, rope_type: 'yarn' } } as unknown as LlamaConfig;
    expect(() => ropeInvFreq(bad)).toThrow(/yarn/);
  });
});
