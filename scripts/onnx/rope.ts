import type { LlamaConfig } from './llama-config';
import { llamaDims } from './llama-config';

/**
 * RoPE inverse frequencies, length head_dim / 2, as HF `_compute_default_rope_parameters` /
 * `_compute_llama3_parameters`: inv_freq[i] = theta^(-2i/head_dim), then with llama3 scaling
 * wavelengths shorter than original/high_freq_factor are kept, longer than original/low_freq_factor are
 * divided by `factor`, and the band between is interpolated smoothly. The llama3 attention factor is 1,
 * so cos/sin need no extra scale.
 */
export function ropeInvFreq(config: LlamaConfig): Float64Array {
  const { headDim } = llamaDims(config);
  const half = headDim / 2;
  const inv = new Float64Array(half);
  for (let i = 0; i < half; i++) inv[i] = 1 / Math.pow(config.rope_theta, (2 * i) / headDim);
  const s = config.rope_scaling;
  if (!s) return inv;
  if (s.rope_type !== 'llama3') throw new Error(`rope_scaling.rope_type ${String(s.rope_type)} is not supported`);
  const lowFreqWavelen = s.original_max_position_embeddings / s.low_freq_factor;
  const highFreqWavelen = s.original_max_position_embeddings / s.high_freq_factor;
  for (let i = 0; i < half; i++) {
    const f = inv[i]!;
    const wavelen = (2 * Math.PI) / f;
    if (wavelen < highFreqWavelen) continue;
    if (wavelen > lowFreqWavelen) {
      inv[i] = f / s.factor;
      continue;
    }
    const smooth = (s.original_max_position_embeddings / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
    inv[i] = ((1 - smooth) * f) / s.factor + smooth * f;
  }
  return inv;
}
