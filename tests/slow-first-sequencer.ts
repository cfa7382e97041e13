/**
 * Test order for `npm test` on two cores: the slowest tiers first, so they overlap everything else
 * instead of running alone at the end — the SwiftShader WebGPU tier, then the other browser files,
 * then the Node tiers that load real models or servers (model, llama-server, training, property), then
 * the unit files (each group in vitest's own order: failed and slow-last-time first).
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

function rank(spec: TestSpecification): number {
  if (spec.moduleId.endsWith('.webgpu.browser.test.ts')) return 0;
  if (spec.moduleId.endsWith('.browser.test.ts')) return 1;
  return spec.project.name === 'unit' ? 3 : 2;
}

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted.map((spec, i) => ({ spec, i })).sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i).map(({ spec }) => spec);
  }
}
