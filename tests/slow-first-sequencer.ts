/**
 * Test order for `npm test` on two cores: the slowest tier first, so it overlaps everything else
 * instead of running alone at the end — the SwiftShader WebGPU tier, then the other browser files,
 * then the unit files (each group in vitest's own order: failed and slow-last-time first).
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const rank = (spec: TestSpecification): number => (spec.moduleId.endsWith('.webgpu.browser.test.ts') ? 0 : spec.moduleId.endsWith('.browser.test.ts') ? 1 : 2);

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted.map((spec, i) => ({ spec, i })).sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i).map(({ spec }) => spec);
  }
}
