/**
 * Runs the paraphrase evaluation (paraphrase-eval.ts) through the real engine and scores each item's full loop.
 *
 *   npx tsx scripts/micro-llama/paraphrase-score.ts [--constrained] [--show-failures K]
 *
 * Greedy, unforced (or under the agent loop's call constraint with `--constrained`, as bench `micro` runs it), on the
 * ONNX model expanded from the committed artifact.
 */
import { fileURLToPath } from 'node:url';
import type { Engine } from '../../worker/engine';
import { createNodeEngine } from '../../worker/create-node-engine';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import type { ParsedOutput, TextTokenizer, ToolCall } from '../../src/format/types';
import { buildMicroModel } from '../setup/micro-model';
import { containsValue } from './dialogues';
import { MICRO_MODEL_ID, microModelEntry, runExchange } from './evaluate';
import { acceptsCall, historyMessages, PARAPHRASE_INTENTS, paraphraseSet, type ParaphraseIntent, type ParaphraseItem } from './paraphrase-eval';

export interface ParaphraseOutcome {
  intent: ParaphraseIntent;
  /** The first message calls the expected tool (or, for small talk, none). */
  toolChoice: boolean;
  /** That call has the expected argument shape (acceptsCall). */
  callShape: boolean;
  /** The final answer holds every expected value (small talk: answers in kind). */
  answerHasValue: boolean;
  /** eom after the call, eot after the answer. */
  terminators: boolean;
  fullLoop: boolean;
  transcript: string[];
}

/** A call the item did not expect gets what a loop would give it: nothing useful. */
function unexpectedResult(call: ToolCall): Record<string, unknown> {
  if (call.kind === 'builtin' && call.name === 'brave_search') return { query: String(call.arguments.query ?? ''), results: [] };
  return { error: `the ${call.name} call could not be answered in this evaluation` };
}

/** Scores what the model wrote for `item`. */
export function scoreParaphrase(item: ParaphraseItem, gens: readonly ParsedOutput[], transcript: string[] = []): ParaphraseOutcome {
  const first = gens[0];
  const firstCall = first?.toolCalls[0];
  const expectedGens = item.tool === null ? 1 : 2;
  const toolChoice = first !== undefined && (item.tool === null ? first.toolCalls.length === 0 : firstCall?.name === item.tool && firstCall.kind !== 'invalid');
  const callShape = first !== undefined && (item.tool === null ? first.toolCalls.length === 0 : first.toolCalls.length === 1 && acceptsCall(item, firstCall!));
  const answer = gens[expectedGens - 1];
  const final = answer !== undefined && answer.toolCalls.length === 0 && answer.content.trim() !== '';
  const answerHasValue = final && item.values.every((v) => containsValue(answer.content, v)) && (item.inKind?.test(answer.content) ?? true);
  const terminators = first !== undefined && (item.tool === null ? first.stop === 'eot' : first.stop === 'eom' && answer?.stop === 'eot');
  const fullLoop = toolChoice && callShape && answerHasValue && terminators && gens.length === expectedGens;
  return { intent: item.intent, toolChoice, callShape, answerHasValue, terminators, fullLoop, transcript: [`Q: ${item.question}`, `expected: ${item.call ?? '(no call)'} → ${JSON.stringify(item.values)}${item.inKind ? ` ${item.inKind}` : ''}`, ...transcript] };
}

/** Asks one item's question after its history and scores the loop. */
export async function runParaphrase(engine: Engine, tokenizer: TextTokenizer, item: ParaphraseItem, constrained = false): Promise<ParaphraseOutcome> {
  const messages = historyMessages(item);
  const tool = (call: ToolCall) => (acceptsCall(item, call) && item.result !== null ? item.result : unexpectedResult(call));
  const { generations, transcript } = await runExchange(engine, tokenizer, item.dialogue, messages, item.question, tool, constrained);
  return scoreParaphrase(item, generations, transcript);
}

export interface ParaphraseResult {
  /** Full loops right, over every item. */
  paraphrases: number;
  /** Full loops right, per intent. */
  byIntent: Record<ParaphraseIntent, number>;
  n: number;
  outcomes: ParaphraseOutcome[];
}

const share = (xs: readonly ParaphraseOutcome[]) => Math.round((xs.filter((o) => o.fullLoop).length / xs.length) * 1000) / 1000;

/** The whole set, in order. */
export async function evaluateParaphrases(engine: Engine, tokenizer: TextTokenizer, constrained = false): Promise<ParaphraseResult> {
  const outcomes: ParaphraseOutcome[] = [];
  for (const item of paraphraseSet()) outcomes.push(await runParaphrase(engine, tokenizer, item, constrained));
  const byIntent = Object.fromEntries(PARAPHRASE_INTENTS.map((i) => [i, share(outcomes.filter((o) => o.intent === i))])) as Record<ParaphraseIntent, number>;
  return { paraphrases: share(outcomes), byIntent, n: outcomes.length, outcomes };
}

function rate(xs: readonly ParaphraseOutcome[], f: (o: ParaphraseOutcome) => boolean): string {
  return `${((xs.filter(f).length / xs.length) * 100).toFixed(1)}%`.padStart(8);
}

async function main(): Promise<void> {
  const constrained = process.argv.includes('--constrained');
  const i = process.argv.indexOf('--show-failures');
  const showFailures = i >= 0 ? Number(process.argv[i + 1]) : 0;
  if (!Number.isInteger(showFailures) || showFailures < 0) throw new Error('--show-failures needs a count');
  await buildMicroModel();
  const engine = createNodeEngine([microModelEntry()]);
  await engine.load(MICRO_MODEL_ID);
  const t0 = performance.now();
  const r = await evaluateParaphrases(engine, loadTokenizer(), constrained);
  await engine.unload();
  console.log(`paraphrases${constrained ? ' (constrained)' : ''}: ${r.n} items\n${''.padEnd(12)}${'n'.padStart(6)}${'tool'.padStart(8)}${'shape'.padStart(8)}${'value'.padStart(8)}${'stops'.padStart(8)}${'loop'.padStart(8)}`);
  for (const group of [...PARAPHRASE_INTENTS, 'all'] as const) {
    const xs = group === 'all' ? r.outcomes : r.outcomes.filter((o) => o.intent === group);
    console.log(`${group.padEnd(12)}${String(xs.length).padStart(6)}${rate(xs, (o) => o.toolChoice)}${rate(xs, (o) => o.callShape)}${rate(xs, (o) => o.answerHasValue)}${rate(xs, (o) => o.terminators)}${rate(xs, (o) => o.fullLoop)}`);
  }
  for (const f of r.outcomes.filter((o) => !o.fullLoop).slice(0, showFailures)) console.log(`\n[${f.intent}]\n${f.transcript.join('\n')}`);
  console.log(`\n${JSON.stringify({ paraphrases: r.paraphrases, paraphrasesByIntent: r.byIntent })}\nevaluated in ${((performance.now() - t0) / 60_000).toFixed(1)} min`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
