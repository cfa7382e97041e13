/**
 * Greedy, unforced evaluation of the micro model through the project's own Node engine (onnx backend,
 * our sampler at temperature 0, our renderer and parser), with a small loop of its own: render →
 * generate → parse → the tool's result synthesized from the world → append → continue.
 *
 *   npx tsx scripts/micro-llama/evaluate.ts [--dialogues N] [--sets a,b] [--write-manifest] [--show-failures K] [--sweep] [--constrained]
 *   npx tsx scripts/micro-llama/evaluate.ts --sets customTools --probe-seed 5001 --show-failures 20
 *
 * `--constrained` generates under the agent loop's call constraint (callConstraint), as the product does.
 * `--probe-seed S` draws each set's dialogues from seed S instead of the set's own: a fresh sample of the
 * same distribution, for reading failures without reading an evaluation set (never written to a manifest).
 *
 * Sets (fixed seeds, none the corpus seed; see dialogues.ts SplitMode): in-distribution (training
 * phrasings and subjects, fresh values and dates), test (the test split's phrasings and subjects: the
 * untouched held-out measure), held-out (held-out phrasings and subjects: "dev", because changes of the
 * world were chosen by it), held-out entities (training phrasings, held-out subjects), new names
 * (names that occur nowhere in training). A prompt counts as "tokens seen" when every token of its questions occurs in the corpus and
 * every token the model must write was written by it in training (see everyTokenSeen).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Engine } from '../../worker/engine';
import type { ConstrainedBuiltin, ToolCallConstraint } from '../../src/engine/contract';
import type { PromptToolSchema } from '../../src/tools/custom-tool';
import { createNodeEngine } from '../../worker/create-node-engine';
import type { ModelEntry } from '../../src/engine/model-list';
import { MODELS } from '../../src/engine/models';
import { parseEmitted } from '../../src/format/parse';
import { renderIds } from '../../src/format/render';
import { FIRST_SPECIAL_ID, PYTHON_TAG } from '../../src/format/special-tokens';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import type { Message, ParsedOutput, TextTokenizer, ToolCall } from '../../src/format/types';
import { buildMicroModel, DEFAULT_MICRO_MODEL_DIR, MICRO_CONTEXT_WINDOW, hasFrozenRows, readMicroArtifact } from '../setup/micro-model';
import {
  CATEGORIES, CATEGORY_TOOL, containsValue, dialogueOptions, ENTITY_CATEGORIES, NEW_NAME_CATEGORIES, searchExchange, generateDialogue, type Category, type Dialogue, type DialogueOptions, type Exchange,
} from './dialogues';
import { type CorpusRecipe, frozenPlan, isCorpusRecipe, learnedIds, recipeWordIds, trainingDialogues, trainingExample } from './corpus';
import { Rng } from './rng';
import type { ToolName } from './tool-results';
import { COUNTRIES, POPULATION_CITIES, WEATHER_CITIES } from './world';

export const MICRO_MODEL_ID = 'micro-llama';

/** The micro model's models.json entry, or an equivalent one while models.json does not list it. */
export function microModelEntry(): ModelEntry {
  return MODELS.find((m) => m.id === MICRO_MODEL_ID) ?? {
    id: MICRO_MODEL_ID, label: 'Micro Llama (offline demo)', backend: 'onnx', family: 'micro', toolCalling: true,
    contextWindow: MICRO_CONTEXT_WINDOW, sizeBytes: 70_000_000, vramMB: 80, requiredFeatures: [], description: 'micro model (evaluation)',
    demo: true, path: 'micro-llama', dtype: 'fp32',
  };
}

export interface EvalSet {
  name: 'inDistribution' | 'test' | 'heldOut' | 'heldOutEntities' | 'newNames' | 'customTools' | 'afterError';
  seed: number;
  options: DialogueOptions;
  /** Dialogues as a share of the requested count: the diagnostic sets run half as many. */
  share: 1 | 0.5;
}

const TOOL_CATEGORIES: readonly Category[] = CATEGORIES.filter((c) => CATEGORY_TOOL[c] !== null);

function only(categories: readonly Category[]): Partial<Record<Category, number>> {
  return Object.fromEntries(CATEGORIES.filter((c) => !categories.includes(c)).map((c) => [c, 0]));
}

/** The evaluation sets; seeds differ from the corpus seed (scripts/micro-llama/corpus.ts). */
export function evalSets(): EvalSet[] {
  return [
    { name: 'inDistribution', seed: 1001, options: { mode: 'train' }, share: 1 },
    { name: 'test', seed: 1005, options: { mode: 'test' }, share: 1 },
    { name: 'heldOut', seed: 1002, options: { mode: 'heldOut' }, share: 1 },
    { name: 'heldOutEntities', seed: 1003, options: { mode: 'heldOutEntities', weights: only(ENTITY_CATEGORIES) }, share: 0.5 },
    { name: 'newNames', seed: 1004, options: { mode: 'newNames', weights: only(NEW_NAME_CATEGORIES) }, share: 0.5 },
    // Host tools in the training phrasings, and every call failing.
    { name: 'customTools', seed: 1006, options: { mode: 'train', weights: { ...only(['custom']), custom: 1 } }, share: 0.5 },
    { name: 'afterError', seed: 1007, options: { mode: 'train', weights: { ...only(TOOL_CATEGORIES), custom: 4 }, errorRate: 1 }, share: 0.5 },
  ];
}

/** Token ids of the training corpus: all of them, and those the model wrote (loss targets). */
export interface CorpusIds {
  used: ReadonlySet<number>;
  produced: ReadonlySet<number>;
}

/** Regenerates the corpus an artifact was trained on (seed, size and recipe from its manifest) and collects its ids. */
export function corpusIds(seed: number, dialogues: number, tokenizer: TextTokenizer, recipe: CorpusRecipe = 'frozen'): CorpusIds {
  const used = new Set<number>();
  const produced = new Set<number>();
  for (const d of trainingDialogues(seed, dialogues, tokenizer, recipe)) {
    const { ids, loss } = trainingExample(d, tokenizer);
    for (const id of ids) used.add(id);
    for (const [a, b] of loss) for (let i = a; i < b; i++) produced.add(ids[i]!);
  }
  return { used, produced };
}

/** The ids of the corpus a manifest names: its seed, size and recipe (`frozen` when it names none). */
export function artifactCorpusIds(manifest: { corpus?: unknown }, tokenizer: TextTokenizer): CorpusIds {
  const corpus = manifest.corpus as { seed: number; dialogues: number; recipe?: string };
  const recipe = corpus.recipe ?? 'frozen';
  if (!isCorpusRecipe(recipe)) throw new Error(`the artifact's corpus recipe "${recipe}" is not one corpus.ts knows`);
  return corpusIds(corpus.seed, corpus.dialogues, tokenizer, recipe);
}

/**
 * Every token was seen in training: each id of the questions occurs in the corpus, and each id the model
 * must write (its calls and answers) was written by it in training (a loss target there).
 */
export function everyTokenSeen(d: Dialogue, tokenizer: TextTokenizer, ids: CorpusIds): boolean {
  const { ids: all, loss } = trainingExample(d, tokenizer);
  const written = new Set<number>();
  for (const [a, b] of loss) for (let i = a; i < b; i++) written.add(i);
  const questions = d.exchanges.flatMap((ex) => tokenizer.encode(ex.question));
  return questions.every((id) => ids.used.has(id)) && [...written].every((i) => ids.produced.has(all[i]!));
}

/** What the model did with one exchange. */
export interface ExchangeOutcome {
  category: Category;
  tool: ToolName | null;
  error: boolean;
  followUp: boolean;
  /** Every token was seen in training (see everyTokenSeen). */
  seenTokens: boolean;
  toolChoice: boolean;
  exactCall: boolean;
  answerHasValue: boolean;
  terminators: boolean;
  fullLoop: boolean;
  /**
   * A clean final answer: after the tool's result (an error or a denial in the afterError set) a
   * non-empty answer with no call, ended with eot, not cut by the token limit, with no repeated block.
   */
  cleanAnswer: boolean;
  /** The model's messages (raw text and stop), for failure reports. */
  transcript: string[];
}

/** A tool's result for a call the model made: the world's result when the call is the expected one, else "nothing useful". */
export function simulateTool(call: ToolCall, ex: Exchange): string | Record<string, unknown> {
  if (ex.expectedCall && JSON.stringify(call) === JSON.stringify(ex.expectedCall) && ex.result !== null) return ex.result;
  if (call.kind === 'builtin' && call.name === 'brave_search') return { query: String(call.arguments.query ?? ''), results: [] };
  if (call.kind === 'builtin' && call.name === 'wolfram_alpha') return { error: 'Wolfram|Alpha did not understand your input', status: 501 };
  if (call.kind === 'code') return { error: 'NameError: the code could not be run in this evaluation' };
  if (call.kind === 'custom') return { error: `unknown tool ${JSON.stringify(call.name)}`, available_tools: [] };
  return { error: `unknown tool ${JSON.stringify(call.name)}` };
}

const MAX_STEPS_PER_EXCHANGE = 3;
const MAX_TOKENS_PER_MESSAGE = 160;

/** The calls a dialogue offers, as the agent loop constrains them: its tools only, arguments valid. */
export function callConstraint(d: Pick<Dialogue, 'date' | 'builtinTools' | 'tools'>): ToolCallConstraint {
  const options = dialogueOptions(d);
  const tools = (options.tools ?? []) as PromptToolSchema[];
  return { type: 'tool_calls', mode: 'auto', tools: tools.map((t) => ({ name: t.function.name, parameters: t.function.parameters })), builtins: [...(options.builtinTools ?? [])] as ConstrainedBuiltin[] };
}

/**
 * Runs one dialogue through the engine, exchange after exchange, and scores each exchange. `constrained`: generation
 * follows callConstraint (as the agent loop's does); off, the model writes calls freely.
 */
export async function runDialogue(engine: Engine, tokenizer: TextTokenizer, d: Dialogue, ids: CorpusIds, constrained = false): Promise<ExchangeOutcome[]> {
  const seenTokens = everyTokenSeen(d, tokenizer, ids);
  const messages: Message[] = d.system === null ? [] : [{ role: 'system', content: d.system }];
  const outcomes: ExchangeOutcome[] = [];
  for (const ex of d.exchanges) {
    const { generations, transcript } = await runExchange(engine, tokenizer, d, messages, ex.question, (call) => simulateTool(call, ex), constrained);
    outcomes.push(score(ex, generations, seenTokens, transcript));
  }
  return outcomes;
}

/** What the model wrote for one question: each message parsed, and a readable transcript. */
export interface ExchangeRun {
  generations: ParsedOutput[];
  transcript: string[];
}

/**
 * Asks `question` after `messages` (which it extends, left well formed for a next question) and runs the loop:
 * generate → parse → each call answered by `tool` → continue, up to MAX_STEPS_PER_EXCHANGE messages.
 */
export async function runExchange(
  engine: Engine, tokenizer: TextTokenizer, d: Pick<Dialogue, 'date' | 'builtinTools' | 'tools'>, messages: Message[], question: string,
  tool: (call: ToolCall) => string | Record<string, unknown>, constrained = false,
): Promise<ExchangeRun> {
  const constraint = constrained ? callConstraint(d) : undefined;
  messages.push({ role: 'user', content: question });
  const generations: ParsedOutput[] = [];
  const transcript: string[] = [];
  for (let step = 0; step < MAX_STEPS_PER_EXCHANGE; step++) {
    const tokens = renderIds({ ...dialogueOptions(d), messages }, tokenizer);
    if (tokens.length + 8 >= MICRO_CONTEXT_WINDOW) break;
    const r = await engine.generate({ tokens, sampling: { temperature: 0 }, maxTokens: MAX_TOKENS_PER_MESSAGE, ...(constraint ? { constraint } : {}) });
    const text = tokenizer.decode(r.tokens);
    const parsed = parseEmitted(r.tokens, r.stop === 'eom' || r.stop === 'eot' ? r.stop : null, tokenizer);
    generations.push(parsed);
    transcript.push(`${text}[${r.stop}]`);
    const calls = parsed.toolCalls;
    // Emitted ids are replayed as the real loop does, unless they hold a special id the renderer would refuse.
    const ids = r.tokens.every((id) => id < FIRST_SPECIAL_ID || id === PYTHON_TAG) ? r.tokens : undefined;
    messages.push({ role: 'assistant', content: '', raw: text, ...(ids ? { ids } : {}), stop: r.stop === 'eom' || (r.stop !== 'eot' && calls.length > 0) ? 'eom' : 'eot' });
    if (calls.length === 0 && r.stop === 'eom') {
      // An eom with no readable call still waits for a result: answer it with an error, as a loop would.
      messages.push({ role: 'ipython', content: { error: 'no tool call could be read from the message' } });
      continue;
    }
    if (calls.length === 0) break;
    for (const call of calls) {
      const result = tool(call);
      messages.push({ role: 'ipython', content: result });
      transcript.push(`  → ${typeof result === 'string' ? result.slice(0, 80) : JSON.stringify(result).slice(0, 80)}`);
    }
  }
  // Leave the conversation well formed for the next exchange even when the model never answered.
  if (messages[messages.length - 1]?.role === 'ipython') messages.push({ role: 'assistant', content: '', raw: '', stop: 'eot' });
  return { generations, transcript };
}

function score(ex: Exchange, gens: readonly ParsedOutput[], seenTokens: boolean, transcript: string[]): ExchangeOutcome {
  const first = gens[0];
  const firstCall = first?.toolCalls[0];
  // A host tool is chosen by its own name (ex.tool is only the kind, "custom").
  const toolName = ex.tool === 'custom' ? ex.expectedCall?.name : ex.tool;
  const toolChoice = first !== undefined && (ex.tool === null ? first.toolCalls.length === 0 : firstCall !== undefined && firstCall.name === toolName && firstCall.kind !== 'invalid');
  const exactCall = first !== undefined && (ex.expectedCall === null
    ? first.toolCalls.length === 0
    : JSON.stringify(first.toolCalls) === JSON.stringify([ex.expectedCall]));
  const expectedGens = ex.tool === null ? 1 : 2;
  const answer = gens[expectedGens - 1];
  const answerIsFinal = answer !== undefined && answer.toolCalls.length === 0;
  const answerHasValue = answerIsFinal && ex.values.every((v) => containsValue(answer.content, v)) && answer.content.trim() !== '';
  const callStop = ex.tool === 'custom' ? 'eot' : 'eom';
  const terminators = first !== undefined && (ex.tool === null ? first.stop === 'eot' : first.stop === callStop && answer?.stop === 'eot');
  const fullLoop = toolChoice && exactCall && answerHasValue && terminators && gens.length === expectedGens;
  const cleanAnswer = answerIsFinal && answer.stop === 'eot' && answer.content.trim() !== '' && gens.length === expectedGens && !repeats(answer.content);
  return { category: ex.category, tool: ex.tool, error: ex.error, followUp: ex.followUp, seenTokens, toolChoice, exactCall, answerHasValue, terminators, fullLoop, cleanAnswer, transcript: [`Q: ${ex.question}`, `expected: ${ex.call ?? '(no call)'} → ${JSON.stringify(ex.values)}`, ...transcript] };
}

/** A word sequence of 4 or more words said 3 times or more: the start of a repetition loop. */
export function repeats(text: string): boolean {
  const words = text.split(/\s+/).filter(Boolean);
  const seen = new Map<string, number>();
  for (let i = 0; i + 4 <= words.length; i++) {
    const key = words.slice(i, i + 4).join(' ');
    const n = (seen.get(key) ?? 0) + 1;
    if (n >= 3) return true;
    seen.set(key, n);
  }
  return false;
}

export interface AccuracyRow {
  n: number;
  toolChoice: number;
  exactCall: number;
  answerHasValue: number;
  terminators: number;
  fullLoop: number;
  cleanAnswer: number;
}

function row(outcomes: readonly ExchangeOutcome[]): AccuracyRow {
  const n = outcomes.length;
  const rate = (f: (o: ExchangeOutcome) => boolean) => (n === 0 ? 0 : Math.round((outcomes.filter(f).length / n) * 1000) / 1000);
  return { n, toolChoice: rate((o) => o.toolChoice), exactCall: rate((o) => o.exactCall), answerHasValue: rate((o) => o.answerHasValue), terminators: rate((o) => o.terminators), fullLoop: rate((o) => o.fullLoop), cleanAnswer: rate((o) => o.cleanAnswer) };
}

/** Rows: per tool, errors, follow-ups, all; for held-out sets also all split by token coverage. */
export function accuracyTable(outcomes: readonly ExchangeOutcome[], withCoverage: boolean): Record<string, AccuracyRow> {
  const table: Record<string, AccuracyRow> = {
    brave_search: row(outcomes.filter((o) => o.tool === 'brave_search')),
    wolfram_alpha: row(outcomes.filter((o) => o.tool === 'wolfram_alpha')),
    code_interpreter: row(outcomes.filter((o) => o.tool === 'code_interpreter')),
    custom: row(outcomes.filter((o) => o.tool === 'custom')),
    'no tool': row(outcomes.filter((o) => o.tool === null)),
    'tool errors': row(outcomes.filter((o) => o.error)),
    'follow-ups': row(outcomes.filter((o) => o.followUp)),
    all: row(outcomes),
  };
  if (withCoverage) {
    table['all, tokens seen'] = row(outcomes.filter((o) => o.seenTokens));
    table['all, some unseen'] = row(outcomes.filter((o) => !o.seenTokens));
  }
  return table;
}

/** Per-category full-loop rates, for finding which questions are safe in end-to-end tests. */
export function categoryTable(outcomes: readonly ExchangeOutcome[]): Record<string, AccuracyRow> {
  const out: Record<string, AccuracyRow> = {};
  for (const c of new Set(outcomes.map((o) => o.category))) out[c] = row(outcomes.filter((o) => o.category === c));
  return out;
}

export function formatTable(title: string, table: Record<string, AccuracyRow>): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(8);
  const lines = [title, `${''.padEnd(20)}${'n'.padStart(6)}${'tool'.padStart(8)}${'call'.padStart(8)}${'value'.padStart(8)}${'stops'.padStart(8)}${'loop'.padStart(8)}${'clean'.padStart(8)}`];
  for (const [name, r] of Object.entries(table)) {
    if (r.n === 0) continue;
    lines.push(`${name.padEnd(20)}${String(r.n).padStart(6)}${pct(r.toolChoice)}${pct(r.exactCall)}${pct(r.answerHasValue)}${pct(r.terminators)}${pct(r.fullLoop)}${pct(r.cleanAnswer)}`);
  }
  return lines.join('\n');
}

export interface SetResult {
  seed: number;
  dialogues: number;
  exchanges: number;
  table: Record<string, AccuracyRow>;
  categories: Record<string, AccuracyRow>;
}

/**
 * Runs the named evaluation sets greedily (`count` dialogues times each set's share); deterministic for a given count. Shared by this script and `npm run bench`.
 */
export async function evaluate(
  engine: Engine,
  tokenizer: TextTokenizer,
  ids: CorpusIds,
  o: { count: number; sets: readonly string[]; showFailures?: number; probeSeed?: number; constrained?: boolean; log?: (line: string) => void },
): Promise<Record<string, SetResult>> {
  const results: Record<string, SetResult> = {};
  for (const set of evalSets().filter((s) => o.sets.includes(s.name))) {
    const seed = o.probeSeed ?? set.seed;
    const rng = new Rng(seed);
    const n = Math.ceil(o.count * set.share);
    const outcomes: ExchangeOutcome[] = [];
    for (let i = 0; i < n; i++) outcomes.push(...(await runDialogue(engine, tokenizer, generateDialogue(rng, set.options), ids, o.constrained)));
    const table = accuracyTable(outcomes, set.name !== 'inDistribution');
    const categories = categoryTable(outcomes);
    o.log?.(`\n${formatTable(`${set.name}${o.probeSeed === undefined ? '' : ` (probe seed ${seed})`}: ${n} dialogues, ${outcomes.length} exchanges`, table)}`);
    o.log?.(formatTable('  by category', categories));
    for (const f of outcomes.filter((x) => !x.fullLoop).slice(0, o.showFailures ?? 0)) {
      o.log?.(`\n[${f.category}${f.seenTokens ? '' : ', unseen tokens'}]\n${f.transcript.join('\n')}`);
    }
    results[set.name] = { seed, dialogues: n, exchanges: outcomes.length, table, categories };
  }
  return results;
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

/**
 * Every training city and country through one fixed training phrasing per search category (fresh values):
 * which entities the model completes the full loop for, three draws each. For choosing end-to-end cases.
 */
async function sweep(engine: Engine, tokenizer: TextTokenizer, ids: CorpusIds): Promise<void> {
  const rng = new Rng(2024);
  const plans: Array<['population' | 'weather' | 'capital', readonly string[], string]> = [
    ['population', POPULATION_CITIES.train.map((c) => c.name), 'What is the population of {x}?'],
    ['weather', WEATHER_CITIES.train.map((c) => c.name), 'What is the weather in {x} today?'],
    ['capital', COUNTRIES.train.map((c) => c.name), 'What is the capital of {x}?'],
  ];
  for (const [category, names, template] of plans) {
    const passed: string[] = [];
    const failed: string[] = [];
    for (const name of names) {
      let ok = 0;
      for (let k = 0; k < 3; k++) {
        const ex = searchExchange(rng, category, name, template.replace('{x}', name));
        const [o] = await runDialogue(engine, tokenizer, { date: '2026-08-11', system: null, exchanges: [ex] }, ids);
        if (o?.fullLoop) ok++;
      }
      (ok === 3 ? passed : failed).push(ok === 3 ? name : `${name} (${ok}/3)`);
    }
    console.log(`\n${category} "${template}": ${passed.length}/${names.length} entities 3/3\n  pass: ${passed.join(', ')}\n  fail: ${failed.join(', ')}`);
  }
}

async function main(): Promise<void> {
  const count = Number(arg('dialogues', '200'));
  const showFailures = Number(arg('show-failures', '0'));
  const sets = arg('sets', 'inDistribution,test,heldOut,heldOutEntities,newNames,customTools,afterError').split(',');
  const probeSeed = process.argv.includes('--probe-seed') ? Number(arg('probe-seed', 'NaN')) : undefined;
  if (probeSeed !== undefined && !Number.isInteger(probeSeed)) throw new Error('--probe-seed needs an integer');
  if (probeSeed !== undefined && evalSets().some((s) => s.seed === probeSeed)) throw new Error(`--probe-seed ${probeSeed} is an evaluation set's own seed`);
  if (probeSeed !== undefined && process.argv.includes('--write-manifest')) throw new Error('--probe-seed results are never written to the manifest');
  const t0 = performance.now();
  await buildMicroModel();
  const artifact = await readMicroArtifact();
  const tokenizer = loadTokenizer();
  const corpus = artifact.manifest.corpus as { seed: number; recipe?: string };
  const ids = artifactCorpusIds(artifact.manifest, tokenizer);
  // Formats /2 and /3 learn rows only for the frozen plan's ids and the recipe's own words; /1 for every id of the corpus.
  const words = recipeWordIds((corpus.recipe ?? 'frozen') as CorpusRecipe, tokenizer);
  const learned = new Set(hasFrozenRows(artifact.manifest.format) ? learnedIds(ids.used, frozenPlan(corpus.seed, tokenizer), words) : ids.used);
  if (learned.size !== artifact.usedIds.length || !artifact.usedIds.every((id) => learned.has(id))) {
    throw new Error('the regenerated corpus does not match the artifact\'s embedding rows: was the corpus generator changed after training?');
  }
  const engine = createNodeEngine([microModelEntry()]);
  await engine.load(MICRO_MODEL_ID);
  if (process.argv.includes('--sweep')) {
    await sweep(engine, tokenizer, ids);
    await engine.unload();
    return;
  }
  const constrained = process.argv.includes('--constrained');
  if (constrained && process.argv.includes('--write-manifest')) throw new Error('the manifest records the model alone: --constrained results are not written to it');
  const results = await evaluate(engine, tokenizer, ids, { count, sets, showFailures, probeSeed, constrained, log: console.log });
  await engine.unload();
  const minutes = (performance.now() - t0) / 60_000;
  console.log(`\nevaluated in ${minutes.toFixed(1)} min`);
  if (process.argv.includes('--write-manifest')) {
    const path = join(DEFAULT_MICRO_MODEL_DIR, 'manifest.json');
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    manifest.evaluation = {
      command: 'npx tsx scripts/micro-llama/evaluate.ts --write-manifest',
      method: 'greedy (temperature 0), unforced, through createNodeEngine (onnx backend, onnxruntime-node CPU) and parseEmitted (the parser, from the emitted ids); tool results synthesized from the world; exact match',
      columns: { toolChoice: 'the first message calls the right tool (or none)', exactCall: 'the call parses to exactly the expected call', answerHasValue: 'the answer after the result contains every expected value', terminators: 'eom after the call, eot after the answer', fullLoop: 'all of these, with no extra call' },
      weightsSha256: artifact.manifest.weights.sha256,
      ...results,
    };
    writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
    console.log(`wrote the evaluation into ${path}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
