// Test page: the standard surfaces (OpenAI chat completions, the AI SDK provider) on the page's main
// thread over the real engine worker; the model's side is forced with ids the test computes in Node.
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { collect, ofType } from '../../../src/agent/collect-events';
import { runAgent } from '../../../src/agent/run-agent';
import { llama31 } from '../../../src/api/ai-sdk/llama31';
import type { ChatTurnResult } from '../../../src/api/chat-types';
import { createChatCompletions } from '../../../src/api/openai/create-chat-completions';
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from '../../../src/api/openai/wire-types';
import { EngineClient } from '../../../src/engine/client';
import { defineCustomTool } from '../../../src/tools/custom-tool';
import { recordingEngine, type RecordingEngine } from '../../support/recording-engine';

declare global {
  interface Window {
    engine: EngineClient;
    ready: boolean;
    scenario: (name: string, forced: number[][]) => Promise<unknown>;
  }
}

const DATE = '11 August 2026';
const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const WEATHER: ChatCompletionTool = { type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: schema } };
const TIME: ChatCompletionTool = { type: 'function', function: { name: 'get_time', description: 'Current time in a city', parameters: schema } };

window.engine = EngineClient.start({ modelsBaseUrl: new URL('/models/', location.href).href, wasmBaseUrl: new URL('/ort/', location.href).href });

let recorder: RecordingEngine | null = null;
const turns: ChatTurnResult[] = [];
const engine = () => (recorder ??= recordingEngine(window.engine, window.engine.tokenizer!));
const api = () => createChatCompletions(engine(), { date: DATE, onTurn: (t) => turns.push(t) });
const user = (content: string): ChatCompletionMessageParam => ({ role: 'user', content });
const stats = () => engine().calls.map((c) => c.result!.stats);

const scenarios: Record<string, (forced: number[][]) => Promise<unknown>> = {
  async plain(forced) {
    engine().forceNextRun(forced);
    return api().chat.completions.create({ model: window.engine.model!.modelId, messages: [user('Hi')] });
  },
  async stream(forced) {
    engine().forceNextRun(forced);
    const stream = await api().chat.completions.create({ model: window.engine.model!.modelId, messages: [user('Stream')], stream: true, stream_options: { include_usage: true } });
    const chunks: ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    return chunks;
  },
  async toolRoundTrip(forced) {
    const chat = api();
    const messages = [user('Weather in Paris?')];
    engine().forceNextRun(forced.slice(0, 1));
    const first = await chat.chat.completions.create({ model: window.engine.model!.modelId, messages, tools: [WEATHER] });
    const call = first.choices[0]!.message.tool_calls![0]!;
    messages.push(first.choices[0]!.message as ChatCompletionMessageParam, { role: 'tool', tool_call_id: call.id, content: '{"city": "Paris", "temperature_c": 21}' });
    engine().forceNextRun(forced.slice(1));
    const second = await chat.chat.completions.create({ model: window.engine.model!.modelId, messages, tools: [WEATHER] });
    return { first, second, prompts: turns.slice(-2).map((t) => t.prompt), stats: stats().slice(-2) };
  },
  async parallel(forced) {
    const chat = api();
    const messages = [user('Time and weather in Oslo?')];
    engine().forceNextRun(forced.slice(0, 1));
    const first = await chat.chat.completions.create({ model: window.engine.model!.modelId, messages, tools: [WEATHER, TIME] });
    const [a, b] = first.choices[0]!.message.tool_calls!;
    messages.push(first.choices[0]!.message as ChatCompletionMessageParam, { role: 'tool', tool_call_id: b!.id, content: 'mild' }, { role: 'tool', tool_call_id: a!.id, content: 'noon' });
    engine().forceNextRun(forced.slice(1));
    const second = await chat.chat.completions.create({ model: window.engine.model!.modelId, messages, tools: [WEATHER, TIME] });
    return { first, second, prompt: turns.at(-1)!.prompt.text };
  },
  async agentPrompts(forced) {
    const weather = defineCustomTool({ name: 'get_weather', description: 'Current weather for a city', parameters: schema, readOnly: true, execute: async ({ city }) => ({ city, temperature_c: 21 }) });
    const events = await collect(runAgent({ engine: window.engine, tokenizer: window.engine.tokenizer!, tools: [weather], conversation: { date: DATE, messages: [{ role: 'user', content: 'Weather in Paris?' }] }, logitsProcessors: (step) => (forced[step] ? [{ type: 'force', tokens: forced[step]! }] : undefined) }));
    return ofType(events, 'step-finish').map((s) => s.prompt);
  },
  async aiGenerate(forced) {
    engine().forceNextRun(forced);
    const before = turns.length;
    const r = await generateText({ model: llama31(engine(), { date: DATE, onTurn: (t) => turns.push(t) }), prompt: 'Weather in Paris?', tools: aiTools(), stopWhen: stepCountIs(3) });
    const prompts = turns.slice(before).map((t) => t.prompt);
    return { text: r.text, prompts, steps: r.steps.map((s) => ({ finish: s.finishReason, calls: s.toolCalls.map((c) => [c.toolName, c.input]), usage: s.usage })) };
  },
  async aiStream(forced) {
    engine().forceNextRun(forced);
    const r = streamText({ model: llama31(engine(), { date: DATE }), prompt: 'Weather in Paris?', tools: aiTools(), stopWhen: stepCountIs(3) });
    const deltas: string[] = [];
    for await (const d of r.textStream) deltas.push(d);
    const steps = await r.steps;
    return { deltas, steps: steps.map((s) => ({ finish: s.finishReason, results: s.toolResults.map((t) => t.output), usage: s.usage })) };
  },
};

function aiTools() {
  return {
    get_weather: tool({
      description: 'Current weather for a city',
      inputSchema: jsonSchema<{ city: string }>(schema),
      execute: async ({ city }) => ({ city, temperature_c: 21 }),
    }),
  };
}

window.scenario = async (name, forced) => {
  return JSON.parse(JSON.stringify(await scenarios[name]!(forced))) as unknown;
};
window.ready = true;
