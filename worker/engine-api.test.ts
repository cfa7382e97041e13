/**
 * The worker side of the contract keeps callbacks and results in order: comlink carries a proxied
 * callback on its own port, so the last progress report (and the last id batch) must have landed
 * before the call's result is sent, or a page sees `load()` resolve at less than 100%.
 */
import { describe, expect, it } from 'vitest';
import type { LoadProgress } from '../src/engine/contract';
import type { Engine } from './engine';
import { engineApi } from './engine-api';

/** A callback that lands late, as one on another MessagePort may. */
function lateCallback<T>(seen: T[]) {
  return (x: T) => new Promise<void>((resolve) => setTimeout(() => {
    seen.push(x);
    resolve();
  }, 20));
}

describe('engineApi', () => {
  it('load resolves only after its last progress report has landed', async () => {
    const engine = {
      load: async (_m: unknown, _o: unknown, onProgress?: (p: LoadProgress) => void) => {
        onProgress?.({ loadedBytes: 10, totalBytes: 20, text: 'loading model.onnx' });
        onProgress?.({ loadedBytes: 20, totalBytes: 20, text: 'ready' });
        return { modelId: 'm' };
      },
    } as unknown as Engine;
    const seen: LoadProgress[] = [];
    const info = await engineApi(engine, () => {}).load('m', {}, lateCallback(seen) as never);
    expect(info).toEqual({ modelId: 'm' });
    expect(seen.at(-1)).toEqual({ loadedBytes: 20, totalBytes: 20, text: 'ready' });
  });

  it('generate resolves only after its last id batch has landed', async () => {
    const engine = {
      generate: async (_r: unknown, onIds?: (ids: number[]) => void) => {
        onIds?.([1, 2]);
        onIds?.([3]);
        return { tokens: [1, 2, 3] };
      },
    } as unknown as Engine;
    const seen: number[][] = [];
    await engineApi(engine, () => {}).generate({} as never, lateCallback(seen) as never);
    expect(seen).toEqual([[1, 2], [3]]);
  });
});
