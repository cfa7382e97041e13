/**
 * The engine v2 workloads, counted (not timed): how many calls cross the worker boundary per agent
 * step and per tool result, what the page renders and encodes per step (a counting tokenizer), and what regenerate and edit-last-message prefill on a long history
 * against the divergent suffix. The tiny model, the real loop, a real comlink boundary (a
 * MessageChannel standing in for the worker).
 */
import { runAgent } from '../src/agent/run-agent';
import { scriptIds } from '../src/agent/scripted-output';
import { withScriptedSteps } from '../tests/support/scripted-steps';
import { EngineClient } from '../src/engine/client';
import { loadTokenizer } from '../src/format/tokenizer/load-node';
import type { TextTokenizer } from '../src/format/types';
import { defineCustomTool } from '../src/tools/custom-tool';
import { ChatSession, type SessionEvent } from '../src/ui/chat-session';
import { StandInWorker } from '../tests/support/stand-in-worker';
import { createNodeEngine } from '../worker/create-node-engine';
import { engineApi } from '../worker/engine-api';
import { countingTokenizer } from '../tests/support/counting-tokenizer';
import { syntheticSearchResult } from './tool-loop';

export interface RoundTrips {
  steps: number;
  toolResults: number;
  /** Calls the client made across the boundary during the run. */
  calls: number;
  /** Of those, calls made between a tool call and its result (running, counting, cutting it). */
  callsDuringTools: number;
  /**
   * Whole-conversation renders after the first prompt was built: each one encodes the system block
   * (its "Cutting Knowledge Date" line) again.
   */
  renders: number;
  /**
   * Characters the page encoded after the first prompt was built, and the characters the loop
   * appended as text (the tool results): an incremental transcript encodes each appended text once
   * and nothing else. A result over `maxResultTokens` is also counted by the tool's budget (up to 4
   * encodes, tools/token-budget.ts): measure the transcript with results that fit.
   */
  encodedChars: number;
  appendedChars: number;
}

const SYSTEM_BLOCK_LINE = 'Cutting Knowledge Date:';

/**
 * A `steps`-step loop through the client: every step but the last calls a custom search tool whose
 * result (~`resultTokens` tokens) is over the `maxResultTokens` budget, so it is counted and cut.
 */
export async function countRoundTrips(options: { steps: number; resultTokens: number; maxResultTokens: number }): Promise<RoundTrips> {
  const pageTokenizer = loadTokenizer();
  const worker = new StandInWorker().serve(engineApi(createNodeEngine(), () => {}));
  const client = new EngineClient(worker as unknown as Worker, { loadTokenizer: async () => pageTokenizer });
  const tokenizer = countingTokenizer(pageTokenizer);
  try {
    await client.load('tiny-llama');
    const search = defineCustomTool({
      name: 'search',
      description: 'Searches the notes',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
      readOnly: true,
      execute: async ({ query }) => syntheticSearchResult(Number(String(query).replace(/\D/g, '')), options.resultTokens, pageTokenizer),
    });
    const engine = withScriptedSteps(client);
    const calls = Array.from({ length: options.steps - 1 }, (_, i) => `{"name": "search", "parameters": {"query": "part ${i + 1}"}}<|eot_id|>`);
    engine.forceNextRun([...calls, 'Done reading.<|eot_id|>'].map((s) => scriptIds(s, pageTokenizer)));
    const before = worker.posted;
    let callsDuringTools = 0;
    let atCall = 0;
    let appendedChars = 0;
    let firstPrompt = -1;
    for await (const e of runAgent({ engine, tokenizer, tools: [search], conversation: { date: '11 August 2026', messages: [{ role: 'user', content: 'Read the notes.' }] }, maxResultTokens: options.maxResultTokens, sampling: { temperature: 0 } })) {
      if (e.type === 'step-start' && firstPrompt < 0) firstPrompt = tokenizer.encoded.length;
      if (e.type === 'tool-call') atCall = worker.posted;
      if (e.type === 'tool-result') (callsDuringTools += worker.posted - atCall), (appendedChars += e.content.length);
      if (e.type === 'error') throw new Error(`engine bench: the loop failed: ${e.error.message}`);
      if (e.type === 'finish' && e.steps !== options.steps) throw new Error(`engine bench: the loop ran ${e.steps} steps, not ${options.steps}`);
    }
    const afterFirst = tokenizer.encoded.slice(firstPrompt);
    return {
      steps: options.steps,
      toolResults: options.steps - 1,
      calls: worker.posted - before,
      callsDuringTools,
      renders: afterFirst.filter((t) => t.includes(SYSTEM_BLOCK_LINE)).length,
      encodedChars: afterFirst.reduce((n, t) => n + t.length, 0),
      appendedChars,
    };
  } finally {
    client.terminate();
    worker.close();
  }
}

export interface PrefixReuse {
  historyTokens: number;
  regeneratePrefilled: number;
  regenerateSuffix: number;
  editPrefilled: number;
  editSuffix: number;
}

/** Ids of a prompt that differ from what the engine holds: all but the longest common prefix (at least one id is fed). */
function divergentSuffix(cached: readonly number[], prompt: readonly number[]): number {
  let common = 0;
  const limit = Math.min(cached.length, prompt.length - 1);
  while (common < limit && cached[common] === prompt[common]) common++;
  return prompt.length - common;
}

/**
 * A chat grown to about `historyTokens` tokens (long user messages, short forced answers), then
 * regenerate of the last answer and an edit of the last user message: what each first step
 * prefilled, and the suffix that diverges from the engine's cache.
 */
export async function measurePrefixReuse(historyTokens: number): Promise<PrefixReuse> {
  const tokenizer = loadTokenizer();
  const engine = createNodeEngine();
  await engine.load('tiny-llama');
  try {
    const scripted = withScriptedSteps(engine);
    const session = new ChatSession({
      engine: scripted,
      tokenizer: () => tokenizer,
      model: () => engine.model,
      tools: () => [],
      settings: () => ({ sampling: { temperature: 0 }, maxSteps: 2, maxTokensPerStep: 32 }),
      confirm: async () => 'once',
    });
    const firstSteps: Array<{ prompt: number[]; prefilled: number | null }> = [];
    session.on((e: SessionEvent) => {
      if (e.type === 'agent' && e.event.type === 'step-finish' && e.event.step === 0) firstSteps.push({ prompt: e.event.prompt.ids, prefilled: e.event.stats.prefilledTokens });
    });
    const answer = () => scripted.forceNextRun([scriptIds('Noted, thank you.<|eot_id|>', tokenizer)]);
    for (let turn = 0; (firstSteps.at(-1)?.prompt.length ?? 0) < historyTokens; turn++) {
      answer();
      await session.send(longMessage(turn, tokenizer));
    }
    const history = firstSteps.at(-1)!.prompt.length;

    const beforeRegenerate = engine.cachedIds();
    answer();
    await session.regenerate();
    const regenerated = firstSteps.at(-1)!;

    const beforeEdit = engine.cachedIds();
    const lastUser = session.transcript.filter((m) => m.role === 'user').at(-1)!.content as string;
    answer();
    await session.editLast(`${lastUser.slice(0, Math.floor(lastUser.length * 0.8))} — and one more question at the end?`);
    const edited = firstSteps.at(-1)!;

    return {
      historyTokens: history,
      regeneratePrefilled: regenerated.prefilled ?? NaN,
      regenerateSuffix: divergentSuffix(beforeRegenerate, regenerated.prompt),
      editPrefilled: edited.prefilled ?? NaN,
      editSuffix: divergentSuffix(beforeEdit, edited.prompt),
    };
  } finally {
    await engine.unload();
  }
}

function longMessage(turn: number, tokenizer: TextTokenizer): string {
  const words: string[] = [];
  for (let i = 0; tokenizer.encode(words.join(' ')).length < 400; i++) words.push(`note${turn}-${i} about the harbour, the ferries and the ${i % 7} bridges`);
  return `Please remember these notes (${turn + 1}): ${words.join(' ')}.`;
}
