/**
 * TEST-ONLY hooks, loaded only when the page URL has `?test-hooks`: the page runs on the test engine
 * worker (worker/engine-test.worker.ts), so the browser tests can force the model's side of a
 * conversation (ids computed in Node) through the real model, and reach the session and loader.
 */
import type { EngineConfig } from '../engine/contract';
import { TestEngineClient } from '../engine/test-engine-client';
import type { ChatPage } from './chat-page';

export interface LlamaTestHooks {
  /** The next run's step i emits idsPerStep[i] (then runs free). */
  forceNextRun(idsPerStep: number[][]): Promise<void>;
  page: ChatPage;
}

declare global {
  interface Window {
    llamaTest?: LlamaTestHooks;
  }
}

export function startTestEngine(config: EngineConfig): TestEngineClient {
  return TestEngineClient.start(config);
}

export function installTestHooks(page: ChatPage, engine: TestEngineClient): void {
  window.llamaTest = { forceNextRun: (ids) => engine.forceNextRun(ids), page };
}
