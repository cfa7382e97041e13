/**
 * The five-step tool loop on an engine server, where the server must generate every step itself:
 * a forced continuation (tool-loop.ts) would be sent as prompt, so the server would evaluate more
 * than the appended ids. Here the micro model (greedy, unforced) runs the real loop (runAgent) on
 * three questions in a row with recorded tool results: call, answer, call, answer, call — five
 * generations, each prompt extending the previous prompt and its emitted ids.
 *
 * Invariant (checked here): every step's prompt starts with the previous prompt and the ids the model
 * emitted; the caller compares what the server evaluated with what was appended.
 */
import { collect, ofType } from '../src/agent/collect-events';
import { recordedTools } from '../src/agent/recorded-tools';
import { runAgent } from '../src/agent/run-agent';
import type { EngineLike, GenerateStats } from '../src/engine/contract';
import type { Message, TextTokenizer } from '../src/format/types';
import { MICRO_E2E_CASES, MICRO_E2E_RENDER_OPTIONS } from '../scripts/micro-llama/e2e-cases';

/** Call-and-answer questions; the last is cut after its call (the loop's fifth step). */
const QUESTIONS = ['population (brave_search)', 'arithmetic (wolfram_alpha)', 'capital (brave_search)'];
const STEPS = 5;

export interface ServerLoopStep {
  stop: string;
  promptTokens: number;
  /** What this prompt adds after the previous prompt and its emitted ids (the first: the whole prompt). */
  appended: number;
  stats: GenerateStats;
}

export async function runServerToolLoop(engine: EngineLike, tokenizer: TextTokenizer): Promise<ServerLoopStep[]> {
  const cases = QUESTIONS.map((name) => MICRO_E2E_CASES.find((c) => c.name === name)!);
  const recording: Record<string, Record<string, unknown>> = {};
  for (const c of cases) (recording[c.call!.name] ??= {})[String(c.call!.arguments.query)] = c.result;
  const tools = recordedTools(recording);
  const steps: ServerLoopStep[] = [];
  let messages: Message[] = [];
  let transcript: number[] = [];
  for (const c of cases) {
    const events = await collect(
      runAgent({
        engine,
        tokenizer,
        tools,
        conversation: { date: MICRO_E2E_RENDER_OPTIONS.date, messages: [...messages, { role: 'user', content: c.question }] },
        sampling: { temperature: 0 },
        maxTokensPerStep: 64,
        maxSteps: Math.min(2, STEPS - steps.length),
        confirm: async () => true,
      }),
    );
    const error = ofType(events, 'error')[0];
    if (error) throw new Error(`server tool loop: ${error.error.code}: ${error.error.message}`);
    for (const s of ofType(events, 'step-finish')) {
      const prompt = s.prompt.ids;
      if (!transcript.every((id, i) => prompt[i] === id)) throw new Error(`server tool loop step ${steps.length + 1}: the prompt does not extend the previous prompt and its emitted ids`);
      steps.push({ stop: s.stop, promptTokens: prompt.length, appended: prompt.length - transcript.length, stats: s.stats });
      transcript = [...prompt, ...s.ids];
    }
    messages = ofType(events, 'finish')[0]!.messages;
  }
  const shape = steps.map((s) => s.stop).join(' ');
  if (shape !== 'eom eot eom eot eom') throw new Error(`server tool loop: expected call, answer, call, answer, call; the model's stops were ${shape}`);
  return steps;
}
