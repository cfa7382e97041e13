/**
 * One size per model everywhere: the picker, the download question and the widget show models.json's
 * `sizeBytes`, the progress bar and "Cached models" count the files the ONNX loader fetches (config,
 * generation config, the weights). For the models this site serves, the two must agree.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { MODELS } from '../engine/models';
import { formatBytes } from './format-units';

const MODELS_DIR = join(import.meta.dirname, '../../models');

it.each(MODELS.filter((m) => m.backend === 'onnx' && !m.remote).map((m) => [m.id, m] as const))('%s: sizeBytes is the bytes its load fetches', (_id, m) => {
  if (m.backend !== 'onnx') throw new Error('unreachable');
  const fetched = ['config.json', 'generation_config.json', m.dtype === 'fp32' ? 'onnx/model.onnx' : `onnx/model_${m.dtype}.onnx`]
    .map((f) => statSync(join(MODELS_DIR, m.path, f)).size)
    .reduce((a, b) => a + b, 0);
  expect(Math.abs(m.sizeBytes - fetched) / fetched).toBeLessThan(0.001);
  expect(formatBytes(m.sizeBytes)).toBe(formatBytes(fetched));
});
