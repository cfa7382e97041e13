/**
 * The micro model's training corpus: dialogues rendered and tokenized by the project's own format code,
 * so the training ids are byte-identical to what the engine feeds the model, with the loss on assistant
 * tokens only (bodies and their eom/eot terminators).
 *
 *   npx tsx scripts/micro-llama/corpus.ts [--out DIR] [--dialogues N] [--seed S] [--recipe frozen|frozen-fewer-names|mixed-names|mixed-name-pieces|mixed-names-no-sentence-words|paraphrases|paraphrases-broad|learned|learned-hosts]
 *
 * writes DIR/train.jsonl (one dialogue a line: {"ids": [...], "loss": [[start, end], ...]}, the loss spans
 * index the ids that are targets), DIR/corpus.json (settings and counts, the recipe among them) and, for the
 * recipes with made-up names (`frozen`, `frozen-fewer-names`, `mixed-names`, `mixed-name-pieces`, `mixed-names-no-sentence-words`, `paraphrases`), DIR/learned-ids.json (train.py gives every other id a frozen row; without it, every corpus
 * id is a learned row and nothing else has one).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderSegments, segmentsToIds } from '../../src/format/render';
import { END_HEADER, EOM, EOT, FIRST_SPECIAL_ID, START_HEADER } from '../../src/format/special-tokens';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import type { TextTokenizer } from '../../src/format/types';
import { CATEGORIES, dialogueConversation, generateDialogue, NEW_NAME_CATEGORIES, rememberTexts, type Category, type Dialogue, type DialogueOptions } from './dialogues';
import { paraphraseSource } from './paraphrases';
import { BROAD_PHRASINGS } from './paraphrases-broad';
import { frozenNamePieces, mixedNamePieces, withoutSentenceWords, worldNamePieceIds } from './synthetic-names';
import { COUNTRIES, EVENTS, NEW_CITIES, WORDS } from './world';
import { Rng } from './rng';

export const DEFAULT_CORPUS_DIR = fileURLToPath(new URL('../../models/micro-llama/train/out', import.meta.url));
export const CORPUS_SEED = 20240723;
export const CORPUS_DIALOGUES = 40_000;
/**
 * The options of the training corpus. Date questions are drawn 3× as often as in the evaluation sets:
 * copying the month from the system block's "Today Date:" line (up to ~900 tokens back) is not learned at
 * the default weight. Host-tool questions are 30 of 139 (~21% of first questions): at 10 (~8%) host-tool
 * choice stays behind every other category. Why each weight was chosen: train/README.md, "Where the
 * workbench's choices come from".
 */
export const TRAIN_OPTIONS: DialogueOptions = {
  mode: 'train',
  // No renaming of custom tools (customRenameRate 0: renaming lowers host-tool choice); `remember` is the copy
  // exercises (made-up names only, no tool).
  weights: { date: 12, custom: 30, remember: 10 },
  // Every failure the runtime can produce, host tools and local-index results are in the corpus.
  errorRate: 0.1,
  // Made-up names in half the search questions, built only from frozen-row pieces (frozenPlan).
  syntheticRate: 0.5,
  localIndexRate: 0.3,
  unusedToolsRate: 0.08,
  customRenameRate: 0,
};

/**
 * The corpus recipes. `frozen`: TRAIN_OPTIONS, made-up names built from frozen-row pieces, learned rows only
 * for the frozen plan's ids. `learned`: no made-up names and no remember exercises, host tools at weight 10,
 * every id of the corpus a learned row (format /1), so new names score 0 by construction.
 * `learned-hosts`: `learned` with host tools at weight 30, for continuing a `learned` artifact (its ids must
 * stay: train.py gives learned rows only to the corpus's ids).
 * `frozen-fewer-names`: `frozen` with made-up names in a quarter of the search questions instead of half, so
 * real names get more copying practice while the frozen rows keep theirs; its learned ids are the frozen plan's.
 * `mixed-names`: `frozen` with made-up names whose pieces mix learned and frozen rows in any position
 * (synthetic-names.ts mixedNamePieces) and made-up events of real events' forms with made-up winners
 * (synthetic-events.ts variedEvent), so that a name's learned rest is copied after its frozen start and a new
 * event is not replaced by a training one; its learned ids are still the frozen plan's.
 * `mixed-name-pieces`: `mixed-names` with the learned pieces drawn only from the world's names
 * (synthetic-names.ts worldNamePieceIds), so no piece is one of the sentences' own words ("What", "Please", "City").
 * `mixed-names-no-sentence-words`: `mixed-names` with every learned piece but the first pieces of the
 * sentences' own words (synthetic-names.ts SENTENCE_WORDS).
 * `paraphrases`: `mixed-name-pieces` with 40% of the advertised intents' questions asked as people ask them and
 * 40% of later questions referring back (paraphrases.ts); the paraphrases' own words get learned rows beside the
 * frozen plan's (paraphraseTexts), so a continued artifact gains rows only for them.
 * `paraphrases-broad`: `paraphrases` with half the questions paraphrased, small talk (weight 12) and Python sums
 * (weight 6) asked more often, and paraphrases-broad.ts's wider word lists (run 35).
 * What each recipe scored: train/README.md, "Where the workbench's choices come from".
 * A manifest's `corpus.recipe` names the recipe; a manifest without one was made by `frozen`'s generator.
 */
export const CORPUS_RECIPES = {
  frozen: TRAIN_OPTIONS,
  learned: { ...TRAIN_OPTIONS, weights: { date: 12, custom: 10, remember: 0 }, syntheticRate: 0 },
  'learned-hosts': { ...TRAIN_OPTIONS, weights: { date: 12, custom: 30, remember: 0 }, syntheticRate: 0 },
  'frozen-fewer-names': { ...TRAIN_OPTIONS, syntheticRate: 0.25 },
  'mixed-names': { ...TRAIN_OPTIONS, variedEvents: true },
  'mixed-name-pieces': { ...TRAIN_OPTIONS, variedEvents: true },
  'mixed-names-no-sentence-words': { ...TRAIN_OPTIONS, variedEvents: true },
  paraphrases: { ...TRAIN_OPTIONS, variedEvents: true, paraphrases: paraphraseSource(0.4) },
  'paraphrases-broad': {
    ...TRAIN_OPTIONS, weights: { ...TRAIN_OPTIONS.weights, chat: 12, sumRange: 6 }, variedEvents: true, paraphrases: paraphraseSource(0.5, BROAD_PHRASINGS),
  },
} as const satisfies Record<string, DialogueOptions>;
export type CorpusRecipe = keyof typeof CORPUS_RECIPES;

export function isCorpusRecipe(name: string): name is CorpusRecipe {
  return Object.hasOwn(CORPUS_RECIPES, name);
}

/** A recipe with made-up names trains frozen rows: its corpus comes with learned-ids.json (every other id frozen). */
export function recipeHasFrozenRows(recipe: CorpusRecipe): boolean {
  return (CORPUS_RECIPES[recipe].syntheticRate ?? 0) > 0;
}

/** The world's names' pieces (synthetic-names.ts worldNamePieceIds), whatever the plan. */
const worldPieces = (_plan: FrozenPlan, tokenizer: TextTokenizer) => worldNamePieceIds(tokenizer);

/**
 * Recipes whose made-up names mix learned pieces into the frozen ones, each with the ids its learned pieces may come
 * from (undefined: any learned id; the world's names'; any but the sentence words').
 */
const MIXED_NAME_PIECES: Partial<Record<CorpusRecipe, (plan: FrozenPlan, tokenizer: TextTokenizer) => ReadonlySet<number> | undefined>> = {
  'mixed-names': () => undefined,
  'mixed-name-pieces': worldPieces,
  paraphrases: worldPieces,
  'paraphrases-broad': worldPieces,
  'mixed-names-no-sentence-words': (plan, tokenizer) => withoutSentenceWords(plan.base, tokenizer),
};

/**
 * The category weights the learned ids are drawn with: fixed (host tools at 10, not TRAIN_OPTIONS' 30) so the
 * frozen plan's ids stay the same for every frozen recipe, and without the remember exercises (made-up names;
 * their own words are added in frozenPlan).
 */
const PLAN_WEIGHTS = { date: 12, custom: 10, remember: 0 } as const;

/** Dialogues drawn without made-up names to find the ids that get learned rows (the rest of the vocabulary is frozen). */
const BASE_DIALOGUES = 8000;

/**
 * Which ids the model learns and which it only ever sees as frozen rows (scripts/setup/frozen-rows.ts):
 * `base` = the ids of the corpus without made-up names (plus the special tokens it uses) get learned rows;
 * `newNameIds` = the ids of the new-names evaluation's names outside `base`, which training must never contain;
 * `pieces` = the made-up names' pieces, from neither set, so every made-up name is frozen rows only;
 * `forbidden` = the ids no made-up name may hold in any form: the new names' and the reversal code's held-out words'.
 */
export interface FrozenPlan {
  base: ReadonlySet<number>;
  newNameIds: ReadonlySet<number>;
  pieces: ReturnType<typeof frozenNamePieces>;
  forbidden: ReadonlySet<number>;
}

const plans = new Map<number, FrozenPlan>();

export function frozenPlan(seed: number, tokenizer: TextTokenizer = loadTokenizer()): FrozenPlan {
  const cached = plans.get(seed);
  if (cached) return cached;
  const base = new Set<number>();
  const rng = new Rng(seed);
  // Without made-up names. PLAN_WEIGHTS, not TRAIN_OPTIONS': a run that changes the mixture keeps the learned rows it continues from.
  const options: DialogueOptions = { ...TRAIN_OPTIONS, syntheticRate: 0, weights: PLAN_WEIGHTS };
  for (let i = 0; i < BASE_DIALOGUES; i++) {
    for (const id of trainingExample(generateDialogue(rng, options), tokenizer).ids) base.add(id);
  }
  for (const text of rememberTexts(COUNTRIES.train[0]!.name)) for (const id of tokenizer.encode(text)) base.add(id);
  // The new names as the model copies them, after a space: training must never contain these ids. The
  // held-out words as the reversal code quotes them: no made-up name is built from those pieces either.
  const newNameIds = new Set<number>();
  const quotedIds = new Set<number>();
  const names = [...NEW_CITIES.flatMap((c) => [c.name, c.country]), ...EVENTS.heldOut.map((e) => e.name), ...WORDS.heldOut];
  for (const name of names) for (const id of tokenizer.encode(` ${name}`)) if (!base.has(id)) newNameIds.add(id);
  for (const w of WORDS.heldOut) for (const id of tokenizer.encode(`"${w}" "${[...w].reverse().join('')}"`)) quotedIds.add(id);
  const forbidden = new Set([...newNameIds, ...quotedIds]);
  const plan = { base, newNameIds, forbidden, pieces: frozenNamePieces(new Set([...base, ...forbidden]), tokenizer, forbidden) };
  plans.set(seed, plan);
  return plan;
}

/** The recipe's options, with the pieces of `seed`'s plan when made-up names are on (frozen, or mixed with learned ones). */
export function trainingOptions(seed: number, tokenizer: TextTokenizer = loadTokenizer(), recipe: CorpusRecipe = 'frozen'): DialogueOptions {
  const options: DialogueOptions = CORPUS_RECIPES[recipe];
  if (!recipeHasFrozenRows(recipe)) return options;
  const plan = frozenPlan(seed, tokenizer);
  const learnedFrom = MIXED_NAME_PIECES[recipe];
  if (!learnedFrom) return { ...options, namePieces: plan.pieces };
  return { ...options, namePieces: mixedNamePieces(plan.pieces, plan.base, plan.forbidden, tokenizer, learnedFrom(plan, tokenizer)) };
}

export interface TrainingExample {
  ids: number[];
  /** Half-open [start, end) ranges of `ids` the loss is computed on (the model predicts ids[i] from ids[..i]). */
  loss: Array<[number, number]>;
}

/**
 * The dialogue's ids and the spans of assistant tokens: each assistant body and its terminator. Headers,
 * system, user and ipython turns are context only.
 */
export function trainingExample(d: Dialogue, tokenizer: TextTokenizer): TrainingExample {
  const ids: number[] = [];
  const loss: Array<[number, number]> = [];
  let role: string | null = null;
  let expectingRole = false;
  let afterHeader = false;
  let inBody = false;
  const mark = (start: number) => {
    const last = loss[loss.length - 1];
    if (last && last[1] === start) last[1] = ids.length;
    else if (ids.length > start) loss.push([start, ids.length]);
  };
  for (const s of renderSegments(dialogueConversation(d))) {
    const start = ids.length;
    ids.push(...segmentsToIds([s], tokenizer));
    if (s.kind === 'special' && s.id === START_HEADER) {
      expectingRole = true;
      role = null;
    } else if (expectingRole && s.kind === 'text') {
      role = s.text;
      expectingRole = false;
    } else if (s.kind === 'special' && s.id === END_HEADER) {
      afterHeader = true;
    } else if (afterHeader) {
      afterHeader = false; // the "\n\n" piece after the header
      inBody = true;
    } else if (inBody) {
      if (role === 'assistant') mark(start);
      if (s.kind === 'special' && (s.id === EOM || s.id === EOT)) inBody = false;
    }
  }
  return { ids, loss };
}

export interface CorpusStats {
  dialogues: number;
  exchanges: number;
  tokens: number;
  lossTokens: number;
  maxTokens: number;
  errors: number;
  followUps: number;
  byCategory: Record<Category, number>;
  distinctIds: number;
}

/**
 * The corpus ids that get learned rows, ascending: the plan's base ids, the recipe's own words (recipeWordIds) and
 * the special tokens; every other id is a frozen row.
 */
export function learnedIds(corpusIds: Iterable<number>, plan: FrozenPlan, recipeWords: ReadonlySet<number> = new Set()): number[] {
  return [...corpusIds].filter((id) => plan.base.has(id) || recipeWords.has(id) || id >= FIRST_SPECIAL_ID).sort((a, b) => a - b);
}

/** Ids a recipe learns beyond the frozen plan's: the paraphrases' words for the paraphrase recipes, none for the others. */
export function recipeWordIds(recipe: CorpusRecipe, tokenizer: TextTokenizer): ReadonlySet<number> {
  const paraphrases = (CORPUS_RECIPES[recipe] as DialogueOptions).paraphrases;
  if (!paraphrases?.rate) return new Set();
  return new Set(paraphrases.texts().flatMap((t) => [...tokenizer.encode(t), ...tokenizer.encode(` ${t}`)]));
}

/** Generates `count` training dialogues of `recipe` from `seed` (pure). */
export function trainingDialogues(seed: number = CORPUS_SEED, count: number = CORPUS_DIALOGUES, tokenizer?: TextTokenizer, recipe: CorpusRecipe = 'frozen'): Dialogue[] {
  const options = trainingOptions(seed, tokenizer, recipe);
  const rng = new Rng(seed);
  return Array.from({ length: count }, () => generateDialogue(rng, options));
}

/** Writes train.jsonl and corpus.json under `outDir`; returns the stats. */
export function writeCorpus(outDir: string, seed: number, count: number, tokenizer: TextTokenizer = loadTokenizer(), recipe: CorpusRecipe = 'frozen'): CorpusStats {
  mkdirSync(outDir, { recursive: true });
  const byCategory = Object.fromEntries(CATEGORIES.map((c) => [c, 0])) as Record<Category, number>;
  const stats: CorpusStats = { dialogues: 0, exchanges: 0, tokens: 0, lossTokens: 0, maxTokens: 0, errors: 0, followUps: 0, byCategory, distinctIds: 0 };
  const seen = new Set<number>();
  const lines: string[] = [];
  for (const d of trainingDialogues(seed, count, tokenizer, recipe)) {
    const ex = trainingExample(d, tokenizer);
    lines.push(JSON.stringify(ex));
    stats.dialogues++;
    stats.tokens += ex.ids.length;
    stats.maxTokens = Math.max(stats.maxTokens, ex.ids.length);
    stats.lossTokens += ex.loss.reduce((s, [a, b]) => s + b - a, 0);
    for (const id of ex.ids) seen.add(id);
    for (const e of d.exchanges) {
      stats.exchanges++;
      byCategory[e.category]++;
      if (e.error) stats.errors++;
      if (e.followUp) stats.followUps++;
    }
  }
  stats.distinctIds = seen.size;
  const plan = frozenPlan(seed, tokenizer);
  const leaked = [...seen].filter((id) => plan.newNameIds.has(id));
  if (leaked.length) throw new Error(`corpus: ${leaked.length} ids of the new-names evaluation occur in training (${leaked.slice(0, 5).join(', ')}…)`);
  writeFileSync(join(outDir, 'train.jsonl'), `${lines.join('\n')}\n`);
  // learned-ids.json is what tells train.py to give frozen rows: the `learned` recipe must not leave an earlier one behind.
  rmSync(join(outDir, 'learned-ids.json'), { force: true });
  let frozen: Record<string, number> | undefined;
  if (recipeHasFrozenRows(recipe)) {
    const learned = learnedIds(seen, plan, recipeWordIds(recipe, tokenizer));
    frozen = { learnedIds: learned.length, frozenIdsInCorpus: seen.size - learned.length, startPieces: plan.pieces.starts.length, continuationPieces: plan.pieces.continuations.length };
    writeFileSync(join(outDir, 'learned-ids.json'), `${JSON.stringify(learned)}\n`);
  }
  writeFileSync(join(outDir, 'corpus.json'), `${JSON.stringify({ generator: 'scripts/micro-llama/corpus.ts', seed, recipe, ...stats, ...(frozen && { frozen }) }, null, 2)}\n`);
  return stats;
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const t0 = performance.now();
  const out = arg('out', DEFAULT_CORPUS_DIR);
  const recipe = arg('recipe', 'frozen');
  if (!isCorpusRecipe(recipe)) throw new Error(`--recipe ${recipe}: one of ${Object.keys(CORPUS_RECIPES).join(', ')}`);
  const stats = writeCorpus(out, Number(arg('seed', String(CORPUS_SEED))), Number(arg('dialogues', String(CORPUS_DIALOGUES))), loadTokenizer(), recipe);
  console.log(`corpus: ${stats.dialogues} dialogues, ${stats.exchanges} exchanges, ${stats.tokens} tokens (${stats.lossTokens} with loss), ` +
    `max ${stats.maxTokens}, ${stats.distinctIds} distinct ids, recipe ${recipe} → ${out} (${Math.round(performance.now() - t0)} ms)`);
  console.log(JSON.stringify(stats.byCategory));
}
