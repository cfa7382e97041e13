/**
 * Made-up names built from the tokenizer's own word pieces, for the training corpus only: a city, a
 * country, an event or a product the model has never seen, which it must copy from the question into
 * the call and from the result into the answer. Drawn from thousands of pieces, so copying is learned
 * as a skill, not as a list of memorised names.
 *
 * Invariants: every name is ASCII letters (a capital first), encodes after a space to the same ids each
 * time it is written, and is none of the world's names nor of the evaluation's new names (world.ts), so
 * the "new names" set stays names that occur nowhere in training.
 */
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import { FIRST_SPECIAL_ID } from '../../src/format/special-tokens';
import type { TextTokenizer } from '../../src/format/types';
import type { Rng } from './rng';
import { ALL_CITIES, ALL_COUNTRIES, CLUBS, EVENTS, FIRST_NAMES, LAST_NAMES, NEW_CITIES, TEAM_COUNTRIES, WORDS } from './world';

/** Word starts (" Vel") among the first ids (the commoner merges), and lower-case continuations ("mo"). */
const START_MAX_ID = 30_000;
const CONTINUATION_MAX_ID = 12_000;

export interface NamePieces {
  starts: readonly string[];
  continuations: readonly string[];
  /** A name is drawn again until this accepts it (frozen pools: every id of " Name" is a pool piece). */
  accept?: (name: string) => boolean;
  /**
   * Pieces with learned rows (mixedNamePieces): when present, each piece of a name comes from these half
   * the time, so made-up names mix learned and frozen rows in any position, as real new names do
   * (" Bus"+"an": frozen, then learned). Starts may be one letter (" M"), then at least one continuation follows.
   */
  learned?: { starts: readonly string[]; continuations: readonly string[] };
}

let cached: NamePieces | undefined;

/**
 * The pools of the frozen-row corpus (`frozen`): word starts and continuations from the whole ordinary
 * vocabulary, minus every id in `exclude` (the ids the corpus has without made-up names, which get
 * learned rows, and the new-names evaluation's ids, which must stay never seen), so that every piece of
 * a made-up name is a frozen row (scripts/setup/frozen-rows.ts) and copying is learned on frozen rows.
 * `forbidden` ids (the new names') occur in no form of a made-up name, with or without its space.
 */
export function frozenNamePieces(exclude: ReadonlySet<number>, tokenizer: TextTokenizer = loadTokenizer(), forbidden: ReadonlySet<number> = exclude): NamePieces & { ids: Set<number> } {
  const starts: string[] = [];
  const continuations: string[] = [];
  const ids = new Set<number>();
  for (let id = 0; id < FIRST_SPECIAL_ID; id++) {
    if (exclude.has(id)) continue;
    const piece = tokenizer.decode([id]);
    if (/^ [A-Z][a-z]{2,9}$/.test(piece)) starts.push(piece.slice(1));
    else if (/^[a-z]{2,5}$/.test(piece)) continuations.push(piece);
    else continue;
    ids.add(id);
  }
  // Written without a space (a JSON string's start) a name tokenizes differently: none of those ids may be forbidden.
  const accept = (name: string) => tokenizer.encode(` ${name}`).every((id) => ids.has(id)) && tokenizer.encode(name).every((id) => !forbidden.has(id));
  return { starts, continuations, ids, accept };
}

/**
 * `frozen`'s pools plus the pieces of the learned ids `base` (scripts/micro-llama/corpus.ts frozenPlan), or only
 * those of them in `learnedFrom` (worldNamePieceIds or withoutSentenceWords): every id of " Name" is a frozen piece or a learned id,
 * so the learned ids stay the plan's, and no form of a name has a `forbidden` id (the new names' ids stay out of training).
 */
export function mixedNamePieces(frozen: ReturnType<typeof frozenNamePieces>, base: ReadonlySet<number>, forbidden: ReadonlySet<number>, tokenizer: TextTokenizer = loadTokenizer(), learnedFrom?: ReadonlySet<number>): NamePieces {
  const starts: string[] = [];
  const continuations: string[] = [];
  for (const id of [...base].sort((a, b) => a - b)) {
    if (id >= FIRST_SPECIAL_ID || forbidden.has(id) || (learnedFrom && !learnedFrom.has(id))) continue;
    const piece = tokenizer.decode([id]);
    if (/^ [A-Z][a-z]{0,9}$/.test(piece)) starts.push(piece.slice(1));
    else if (/^[a-z]{2,5}$/.test(piece)) continuations.push(piece);
  }
  if (starts.length === 0 || continuations.length === 0) throw new Error('mixed names: the learned ids hold no name pieces');
  // Each form encoded once: accept runs for every drawn name and event of a corpus.
  const accept = (name: string) => {
    const spaced = tokenizer.encode(` ${name}`);
    return spaced.every((id) => (frozen.ids.has(id) || base.has(id)) && !forbidden.has(id)) && tokenizer.encode(name).every((id) => !forbidden.has(id));
  };
  return { starts: frozen.starts, continuations: frozen.continuations, accept, learned: { starts, continuations } };
}

/**
 * The ids of the world's own names as the corpus writes them after a space (cities and countries but the new
 * names, capitals, people, clubs and teams): learned pieces that read as a name, where the corpus's other learned
 * ids include its sentences' words ("What", "Please", "City"), which mixed names drawn from every learned id are made of.
 */
export function worldNamePieceIds(tokenizer: TextTokenizer = loadTokenizer()): Set<number> {
  const isNew = new Set(NEW_CITIES.flatMap((c) => [c.name, c.country]));
  const names = [
    ...ALL_CITIES.flatMap((c) => [c.name, c.country]), ...ALL_COUNTRIES.flatMap((c) => [c.name, c.capital]),
    ...FIRST_NAMES, ...LAST_NAMES, ...CLUBS, ...TEAM_COUNTRIES,
  ].filter((n) => !isNew.has(n));
  return new Set(names.flatMap((n) => tokenizer.encode(` ${n}`)));
}

/**
 * The capitalised words the corpus's own sentences write (dialogues.ts, world.ts and tool-results.ts templates: questions,
 * answers, tool results and system text), none of them a name: a short list read from the templates, not from
 * transcripts.
 */
export const SENTENCE_WORDS = [
  'I', 'How', 'What', 'Who', 'Where', 'Which', 'Can', 'Please', 'Let', 'Have', 'Ask', 'Feel', 'Answer', 'Today', 'Date',
  'File', 'Failed', 'Search', 'Python', 'Wind', 'Humidity', 'Wolfram', 'Alpha', 'Wikipedia', 'Knowledge', 'Brave',
] as const;

/**
 * The learned ids `base` but the first piece of each sentence word after a space (" What", " Hum" of " Humidity"):
 * a pool between every learned id and the world's names' ids only: every continuation, 441 of the 466 starts.
 */
export function withoutSentenceWords(base: ReadonlySet<number>, tokenizer: TextTokenizer = loadTokenizer()): Set<number> {
  const starts = sentenceWordStartIds(tokenizer);
  return new Set([...base].filter((id) => !starts.has(id)));
}

/** The first id of each sentence word written after a space (" What"; " Hum" of " Humidity"). */
export function sentenceWordStartIds(tokenizer: TextTokenizer = loadTokenizer()): Set<number> {
  return new Set(SENTENCE_WORDS.map((w) => tokenizer.encode(` ${w}`)[0]!));
}

/** The piece pools of the Llama 3.1 tokenizer (computed once per process). */
export function namePieces(tokenizer: TextTokenizer = loadTokenizer()): NamePieces {
  if (cached) return cached;
  const starts: string[] = [];
  const continuations: string[] = [];
  for (let id = 0; id < START_MAX_ID; id++) {
    const piece = tokenizer.decode([id]);
    if (/^ [A-Z][a-z]{2,9}$/.test(piece)) starts.push(piece.slice(1));
    if (id < CONTINUATION_MAX_ID && /^[a-z]{2,5}$/.test(piece)) continuations.push(piece);
  }
  cached = { starts, continuations };
  return cached;
}

const TAKEN = new Set<string>([
  ...ALL_CITIES.map((c) => c.name), ...ALL_COUNTRIES.map((c) => c.name), ...ALL_COUNTRIES.map((c) => c.capital),
  ...[...EVENTS.train, ...EVENTS.heldOut].flatMap((e) => e.name.split(' ')), ...WORDS.train, ...WORDS.heldOut,
].map((n) => n.toLowerCase()));

/** A made-up single word: a start piece and 0–2 continuations ("Velmo", "Grantholm"). */
export function syntheticName(rng: Rng, pieces: NamePieces = namePieces()): string {
  if (pieces.starts.length === 0 || pieces.continuations.length === 0) throw new Error('synthetic names: an empty piece pool');
  for (;;) {
    // Without `learned`, no draw beyond the frozen pools' own: the frozen recipes' corpora stay byte for byte.
    const { learned } = pieces;
    const fromLearned = () => learned !== undefined && rng.chance(0.5);
    const parts = [fromLearned() ? rng.pick(learned!.starts) : rng.pick(pieces.starts)];
    const more = Math.max(Number(rng.weighted({ '0': 3, '1': 5, '2': 2 })), parts[0]!.length < 3 ? 1 : 0);
    for (let i = 0; i < more; i++) parts.push(fromLearned() ? rng.pick(learned!.continuations) : rng.pick(pieces.continuations));
    const name = parts.join('');
    if (name.length <= 14 && !TAKEN.has(name.toLowerCase()) && (pieces.accept?.(name) ?? true)) return name;
  }
}
