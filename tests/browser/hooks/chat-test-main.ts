/**
 * The chat page's test entry (chat-test.html): the product page on the test engine worker, with
 * `window.llamaTest` so the browser tests can force the model's side of a conversation (ids computed
 * in Node) through the real model, and reach the session and loader.
 */
import { pageEngineConfig, startChatPage } from '../../../src/ui/start-chat-page';
import type { ChatPage } from '../../../src/ui/chat-page';
import { TestEngineClient } from './test-engine-client';

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

const engine = TestEngineClient.start(pageEngineConfig());
const page = startChatPage(engine);
window.llamaTest = { forceNextRun: (ids) => engine.forceNextRun(ids), page };
