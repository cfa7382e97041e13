/**
 * A client for the browser tests' engine worker (engine-test.worker.ts): the product engine plus a
 * forced run. Only the test entries in this folder start it.
 */
import { EngineClient } from '../../../src/engine/client';
import type { EngineApi, EngineConfig } from '../../../src/engine/contract';

export interface TestEngineApi extends EngineApi {
  /** The next generate calls emit idsPerStep[0], [1], … through the real model; then it runs free. */
  forceNextRun(idsPerStep: number[][]): Promise<void>;
}

export class TestEngineClient extends EngineClient<TestEngineApi> {
  static override start(config: EngineConfig): TestEngineClient {
    return TestEngineClient.onWorker(new Worker(new URL('./engine-test.worker.ts', import.meta.url), { type: 'module', name: 'llama-engine-test' }), config);
  }

  /** A test client on an already started worker (the widget starts its own, cross-origin). */
  static onWorker(worker: Worker, config: EngineConfig): TestEngineClient {
    const client = new TestEngineClient(worker);
    client.configure(config).catch(() => {});
    return client;
  }

  forceNextRun(idsPerStep: number[][]): Promise<void> {
    return this.call(() => this.api.forceNextRun(idsPerStep));
  }
}
