/**
 * Replays a recorded conversation through the real loop: every assistant message that has `raw`
 * text (encoded) or emitted ids (as they are) is forced token by token through the real model and sampler; a call's result comes from the
 * recorded ipython turn that follows it when there is one, otherwise the real tool runs. What comes
 * out is what the model would see, step by step, and what the KV cache saved.
 */
import type { EngineLike, GenerateStats } from '../engine/contract';
import { assistantStop, normalizeRole } from '../format/conversation';
import { pythonJson } from '../format/python-json';
import { EOM, EOM_TEXT, EOT, EOT_TEXT } from '../format/special-tokens';
import type { Conversation, Message, TextTokenizer } from '../format/types';
import type { Tool } from '../tools/tool';
import { runAgent } from './run-agent';
import { collect, ofType } from './collect-events';
import { scriptIds } from './scripted-output';

export interface ReplayReport {
  /** The exact prompt string at each generation. */
  prompts: string[];
  steps: Array<{ stop: string } & Pick<GenerateStats, 'promptTokens' | 'reusedTokens' | 'prefilledTokens' | 'decodedTokens'>>;
  toolResults: Array<{ name: string; content: string; isError: boolean; recorded: boolean }>;
}

/** One recorded step: the ids to force (its terminator included) and the results recorded after it. */
type Turn = { script: number[]; results: Message[] };

const isRawAssistant = (m: Message) => normalizeRole(m.role) === 'assistant' && (m.raw !== undefined || m.ids !== undefined);
const isResult = (m: Message) => normalizeRole(m.role) === 'ipython';

export async function replay(
  conversation: Conversation,
  options: { engine: EngineLike; tokenizer: TextTokenizer; tools?: Tool[] },
): Promise<ReplayReport> {
  const report: ReplayReport = { prompts: [], steps: [], toolResults: [] };
  const { messages } = conversation;
  let transcript: Message[] = [];
  let i = 0;
  while (i < messages.length) {
    if (!isRawAssistant(messages[i]!)) {
      transcript.push(messages[i++]!);
      continue;
    }
    // One run of the loop: consecutive raw assistant turns, each followed by its recorded results.
    const turns: Turn[] = [];
    for (; i < messages.length && (isRawAssistant(messages[i]!) || (isResult(messages[i]!) && turns.length > 0)); i++) {
      const m = messages[i]!;
      if (isRawAssistant(m)) turns.push({ script: recordedScript(m, options.tokenizer), results: [] });
      else turns.at(-1)!.results.push(m);
    }
    transcript = await replayRun(conversation, transcript, turns, options, report);
  }
  return report;
}

async function replayRun(
  conversation: Conversation,
  transcript: Message[],
  turns: Turn[],
  options: { engine: EngineLike; tokenizer: TextTokenizer; tools?: Tool[] },
  report: ReplayReport,
): Promise<Message[]> {
  const scripts = turns.map((t) => t.script);
  // Results with no recorded answer after them: show the prompt of that next generation too, forced to end at once.
  const endsWithResults = (turns.at(-1)?.results.length ?? 0) > 0;
  if (endsWithResults) scripts.push([EOT]);
  const recorded = (step: number, index: number): string | undefined => {
    const m = turns[step]?.results[index];
    return m === undefined ? undefined : typeof m.content === 'string' ? m.content : pythonJson(m.content);
  };
  const events = await collect(
    runAgent({
      engine: options.engine,
      tokenizer: options.tokenizer,
      // Only the tools the file enables may run; the file's own options render the prompt.
      tools: (options.tools ?? []).filter((t) => conversation.builtinTools?.includes(t.name)),
      conversation: { ...conversation, messages: transcript },
      maxSteps: scripts.length,
      // Recorded output is forced as it was, loops included (a recorded repetition stop replays to its end).
      repetition: false,
      logitsProcessors: (step) => (scripts[step] ? [{ type: 'force', tokens: scripts[step] }] : undefined),
      recordedResult: (_call, step, index) => recorded(step, index),
    }),
  );
  const error = ofType(events, 'error')[0];
  if (error) throw new Error(`replay failed: ${error.error.message}`);
  for (const step of ofType(events, 'step-finish')) {
    report.prompts.push(step.prompt.text);
    const { promptTokens, reusedTokens, prefilledTokens, decodedTokens } = step.stats;
    report.steps.push({ stop: step.stop, promptTokens, reusedTokens, prefilledTokens, decodedTokens });
  }
  for (const r of ofType(events, 'tool-result')) {
    const [step, index] = r.callId.split('.').map(Number) as [number, number];
    report.toolResults.push({ name: r.name, content: r.content, isError: r.isError, recorded: recorded(step, index) !== undefined });
  }
  return ofType(events, 'finish')[0]!.messages;
}

/** What to force for a recorded assistant message: its raw text encoded, else its emitted ids; then its terminator. */
function recordedScript(m: Message, tokenizer: TextTokenizer): number[] {
  const eom = assistantStop(m) === 'eom';
  if (m.raw !== undefined) return scriptIds(m.raw + (eom ? EOM_TEXT : EOT_TEXT), tokenizer);
  return [...m.ids!, eom ? EOM : EOT];
}
