/**
 * The widget's test entry (built in place of src/widget/index.ts by the widget's browser tests):
 * `<llama-chat>` on the test engine worker, with `forceNextRun` so a test can force the model's side
 * of a conversation through the real model.
 */
import type { EngineClient } from '../../../src/engine/client';
import type { EngineConfig } from '../../../src/engine/contract';
import { crossOriginWorker } from '../../../src/widget/engine-start';
import { LlamaChatElement } from '../../../src/widget/llama-chat-element';
import testWorkerScript from './engine-test.worker.ts?worker&url';
import { TestEngineClient } from './test-engine-client';

export class TestLlamaChatElement extends LlamaChatElement {
  private testEngine: TestEngineClient | null = null;

  protected override startEngine(config: EngineConfig): EngineClient {
    this.testEngine = TestEngineClient.onWorker(crossOriginWorker(testWorkerScript, 'llama-engine-test'), config);
    return this.testEngine;
  }

  /** The next run's steps emit these ids (then the model runs free). */
  forceNextRun(idsPerStep: number[][]): Promise<void> {
    if (!this.testEngine) throw new Error('forceNextRun needs the engine started: load() first');
    return this.testEngine.forceNextRun(idsPerStep);
  }
}

customElements.define('llama-chat', TestLlamaChatElement);
