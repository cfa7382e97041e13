/** The SwiftShader tier: the micro model, unforced, on WebGPU through the engine worker (see micro-suite.ts). */
import { describe, it } from 'vitest';
import { askAndCheck, microPage } from './micro-suite';

describe('WebGPU (SwiftShader: correct, slow)', () => {
  it('population (brave_search)', async () => {
    const opened = await microPage('webgpu');
    try {
      await askAndCheck(opened, 'population (brave_search)');
    } finally {
      await opened.page.close();
    }
  }, 300_000);
});
