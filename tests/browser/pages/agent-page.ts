// Test page: the agent loop on the main thread, the engine in its worker, the real tools (proxy on this origin).
import type { AgentEvent } from '../../../src/agent/events';
import { runAgent } from '../../../src/agent/run-agent';
import { EngineClient } from '../../../src/engine/client';
import { braveSearchTool } from '../../../src/tools/brave-search';
import { workedExampleShape } from '../../fixtures/worked-example';

export interface AgentPageRun {
  question: string;
  date: string;
  /** Per step, the ids the model is forced to emit (computed by the test in Node). */
  forced: number[][];
}

declare global {
  interface Window {
    engine: EngineClient;
    runWorkedExample: (run: AgentPageRun) => Promise<AgentEvent[]>;
    ready: boolean;
  }
}

window.engine = EngineClient.start({
  modelsBaseUrl: new URL('/models/', location.href).href,
  wasmBaseUrl: new URL('/ort/', location.href).href,
});

window.runWorkedExample = async ({ question, date, forced }) => {
  const events: AgentEvent[] = [];
  for await (const e of runAgent({
    engine: window.engine,
    tokenizer: window.engine.tokenizer!,
    tools: [braveSearchTool({ shape: workedExampleShape })],
    conversation: { date, messages: [{ role: 'user', content: question }] },
    confirm: async () => true,
    logitsProcessors: (step) => (forced[step] ? [{ type: 'force', tokens: forced[step] }] : undefined),
  })) {
    events.push(e);
  }
  return events;
};
window.ready = true;
