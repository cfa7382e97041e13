// Test page: the unforced loop with the micro model, the real tools (proxy on this origin, Pyodide sandbox),
// or with `local` search and math answered in the page (the local index over the demo corpus, mathjs).
import type { AgentEvent } from '../../../src/agent/events';
import { runAgent } from '../../../src/agent/run-agent';
import { EngineClient } from '../../../src/engine/client';
import { PyodideSandbox } from '../../../src/sandbox/pyodide-sandbox';
import { braveSearchTool } from '../../../src/tools/brave-search';
import { DEMO_CORPUS_PUBLIC_PATH, LocalSearchIndex, type LocalDocument } from '../../../src/tools/local-search';
import { codeInterpreterTool } from '../../../src/tools/code-interpreter';
import { WIDGET_DEMO_TOOL } from '../../../scripts/micro-llama/widget-demo-tool';
import { defineCustomTool } from '../../../src/tools/custom-tool';
import { wolframAlphaTool } from '../../../src/tools/wolfram-alpha';

declare global {
  interface Window {
    engine: EngineClient;
    ask: (question: string, date: string, tools?: boolean | 'local' | 'widget') => Promise<AgentEvent[]>;
    ready: boolean;
  }
}

window.engine = EngineClient.start({
  modelsBaseUrl: new URL('/models/', location.href).href,
  wasmBaseUrl: new URL('/ort/', location.href).href,
});
const python = codeInterpreterTool(new PyodideSandbox());
const tools = [braveSearchTool(), wolframAlphaTool(), python];
let index: Promise<LocalSearchIndex> | undefined;
const localIndex = () => (index ??= fetch(`/${DEMO_CORPUS_PUBLIC_PATH}`).then(async (r) => new LocalSearchIndex((await r.json()) as LocalDocument[])));
const localTools = [braveSearchTool({ provider: 'local', localIndex }), wolframAlphaTool({ provider: 'local', localMath: true }), python];

// The widget demo's host tool, as src/widget/demo.html registers it, beside the code interpreter only (the demo's tools="code_interpreter").
const openingHours = defineCustomTool(WIDGET_DEMO_TOOL);
const widgetTools = [python, openingHours];

/** `local` (or true): search and math answered in the page; `widget`: the widget demo's tools; else the proxy's. */
window.ask = async (question, date, which = false) => {
  const local = which === true || which === 'local';
  const events: AgentEvent[] = [];
  for await (const e of runAgent({
    engine: window.engine,
    tokenizer: window.engine.tokenizer!,
    tools: which === 'widget' ? widgetTools : local ? localTools : tools,
    conversation: { date, messages: [{ role: 'user', content: question }] },
    sampling: { temperature: 0 },
    confirm: async () => true,
    model: window.engine.model,
  })) {
    events.push(e);
  }
  return events;
};
window.ready = true;
