/**
 * The SwiftShader tier: onnxruntime-web's WebGPU backend in Chromium on the software adapter —
 * correct but slow (about a second a token here), so the checks decode two tokens each. What only
 * WebGPU exercises: the KV cache as GPU buffers (extended, read back and sliced on a rollback,
 * disposed), and a lost device.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { conformanceSuite } from './conformance-suite';

conformanceSuite('webgpu', {
  decode: 2,
  // The checks whose backend code differs on WebGPU (GPU key/value buffers); the rest run on WASM.
  checks: [
    'extending the cached ids prefills only the new ones, and gives what a full prefill gives',
    'a divergent prompt keeps the common prefix and rolls back the rest',
    'an abort mid-decode returns what was emitted; the next request is served correctly',
    'a failure inside the backend is a typed error and leaves the engine consistent',
  ],
  more: (page) => lostDevice(page),
});

function lostDevice(page: () => Page): void {
  it('a lost GPU device fails the next generate with device_lost and unloads; loading again recovers', async () => {
    const out = await page().evaluate(async () => {
      const { engine } = window.subject;
      const tokens = [128000, 9906, 1917];
      await engine.generate({ tokens, maxTokens: 1 });
      await window.loseDevice();
      let error: { name: string; code: string } | null = null;
      try {
        await engine.generate({ tokens, maxTokens: 1 });
      } catch (e) {
        error = { name: (e as Error).name, code: (e as { code: string }).code };
      }
      const unloaded = engine.model === null;
      const info = await engine.load('tiny-llama', { device: 'webgpu' });
      const again = await engine.generate({ tokens, maxTokens: 1, sampling: { temperature: 0 } });
      return { error, unloaded, device: info.device, again: again.tokens.length };
    });
    expect(out).toEqual({ error: { name: 'EngineError', code: 'device_lost' }, unloaded: true, device: 'webgpu', again: 1 });
  }, 180_000);
}
