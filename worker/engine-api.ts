/**
 * The worker side of the contract: an Engine behind the EngineApi shape that comlink exposes.
 * Abort signals arrive as MessagePorts; id batches leave through a comlink-proxied callback.
 */
import { signalFromPort } from '../src/engine/abort-port';
import type { EngineApi, EngineConfig } from '../src/engine/contract';
import type { Engine } from './engine';

export function engineApi(engine: Engine, setConfig: (config: EngineConfig) => void): EngineApi {
  return {
    async configure(next) {
      setConfig(next);
    },
    capabilities: () => engine.capabilities(),
    async load(model, options, onProgress, signalPort) {
      const { signal, close } = signalFromPort(signalPort);
      let last: Promise<unknown> = Promise.resolve();
      const report = onProgress
        ? (p: Parameters<typeof onProgress>[0]) => {
            last = Promise.resolve(onProgress(p) as unknown).catch(() => {});
          }
        : undefined;
      try {
        const info = await engine.load(model, options, report, signal);
        // Progress travels on the callback's own port: let the last report ("ready") land before the result.
        await last;
        return info;
      } finally {
        close();
      }
    },
    unload: () => engine.unload(),
    loaded: async () => engine.model,
    async generate(request, onIds, signalPort) {
      const { signal, close } = signalFromPort(signalPort);
      let last: Promise<unknown> = Promise.resolve();
      const send = onIds
        ? (ids: number[]) => {
            last = Promise.resolve(onIds(ids)).catch(() => {});
          }
        : undefined;
      try {
        const result = await engine.generate(request, send, signal);
        // Id batches travel on the callback's own port: let the last one land before the result.
        await last;
        return result;
      } finally {
        close();
      }
    },
  };
}
