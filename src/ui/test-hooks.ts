/**
 * Test hooks, installed only when the page URL has `?test-hooks`: the browser tests force the
 * model's side of a conversation (ids computed in Node) through the real model, as the agent tests
 * do, and reach the session and loader directly.
 */
import type { ChatPage } from './chat-page';

export interface LlamaTestHooks {
  /** The next run's step i emits idsPerStep[i] (then runs free). */
  forceNextRun(idsPerStep: number[][]): void;
  page: ChatPage;
}

declare global {
  interface Window {
    llamaTest?: LlamaTestHooks;
  }
}

export function installTestHooks(page: ChatPage): void {
  window.llamaTest = { forceNextRun: (ids) => page.session.forceNextRun(ids), page };
}
