import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAssistantOutput } from '../../src/format/parse';
import { pythonJson } from '../../src/format/python-json';
import { renderIds, renderPrompt } from '../../src/format/render';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import { CORPUS_DIALOGUES, CORPUS_SEED, frozenPlan, isCorpusRecipe, trainingDialogues, trainingExample, writeCorpus } from './corpus';
import { frozenNamePieces, syntheticName } from './synthetic-names';
import { CATEGORIES, containsValue, dialogueConversation, generateDialogue, type Dialogue, type Exchange, type SplitMode } from './dialogues';
import { Rng } from './rng';
import { FAILURE_TEXTS } from '../../src/tools/failure-texts';
import {
  ALL_COUNTRIES, CHAT, COUNTRIES, DATE_QUESTIONS, EVENTS, NEW_CITIES, POPULATION_CITIES, POPULATION_SUBJECTS, TEAM_COUNTRIES, TEMPLATES, WEATHER_CITIES, WORDS,
  type Split, type TestSplit,
} from './world';

const tokenizer = loadTokenizer();
const TRAIN = trainingDialogues(7, 1500);
const exchanges = (ds: readonly Dialogue[]): Exchange[] => ds.flatMap((d) => d.exchanges);

function dialogues(mode: SplitMode, n: number, seed = 99): Dialogue[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => generateDialogue(rng, { mode }));
}

/** A template as a regex matching the questions it produces. */
function templateRegex(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\\?\{\w+\\?\}|\{\w+\}/g, '.+')}$`);
}

function isSublist(needle: readonly number[], hay: readonly number[]): boolean {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** The entity a search exchange is about: what follows the fixed words of its query. */
function querySubject(ex: Exchange): string | null {
  const q = ex.expectedCall?.arguments.query;
  if (typeof q !== 'string') return null;
  const m = /^(?:population of|weather in|capital of) (.+)$/.exec(q) ?? /^winner of the (.+) \d{4}$/.exec(q);
  return m ? m[1]! : null;
}

describe('containsValue', () => {
  it.each([
    ['The capital of Tunisia is Tunis.', 'Tunis', true],
    ['The capital of Tunisia is Tunisia.', 'Tunis', false],
    ['It is -3°C and light rain.', '-3°C', true],
    ['It is 13°C.', '3°C', false],
    ['The sorted list is [1, 3].', '[1, 3]', true],
    ['The integral of x^2 is x^3/3 + constant.', 'x^3/3 + constant', true],
  ])('%s ∋ %s: %s', (text, value, expected) => {
    expect(containsValue(text, value)).toBe(expected);
  });
});

describe('world', () => {
  const names = <T extends { name: string }>(pool: TestSplit<T>): TestSplit<string> => ({
    train: pool.train.map((x) => x.name), heldOut: pool.heldOut.map((x) => x.name), test: pool.test.map((x) => x.name),
  });
  const pools: Record<string, Split<unknown> & { test?: readonly unknown[] }> = {
    'population cities': names(POPULATION_CITIES),
    'population subjects': POPULATION_SUBJECTS,
    'weather cities': names(WEATHER_CITIES),
    countries: names(COUNTRIES),
    events: { train: EVENTS.train.map((e) => e.name), heldOut: EVENTS.heldOut.map((e) => e.name) },
    words: WORDS,
    chat: { train: CHAT.train.map((c) => c.question), heldOut: CHAT.heldOut.map((c) => c.question), test: CHAT.test.map((c) => c.question) },
    dates: DATE_QUESTIONS,
    ...TEMPLATES,
  };
  it.each(Object.entries(pools))('%s: training, held-out and test parts are disjoint and non-empty', (_, pool) => {
    expect(pool.train.length).toBeGreaterThan(0);
    expect(pool.heldOut.length).toBeGreaterThan(0);
    const train = new Set(pool.train);
    expect(pool.heldOut.filter((x) => train.has(x))).toEqual([]);
    if (pool.test === undefined) return;
    expect(pool.test.length).toBeGreaterThan(0);
    expect(pool.test.filter((x) => train.has(x) || pool.heldOut.includes(x))).toEqual([]);
  });

  it('asks every country for its population in training, the capital questions\' held-out and test countries included', () => {
    expect(ALL_COUNTRIES.length).toBe(COUNTRIES.train.length + COUNTRIES.heldOut.length + COUNTRIES.test.length);
    for (const c of ALL_COUNTRIES) expect(POPULATION_SUBJECTS.train).toContain(c.name);
  });
});

describe('corpus', () => {
  it('is deterministic: same seed, same dialogues; another seed, others', () => {
    expect(trainingDialogues(7, 50)).toEqual(TRAIN.slice(0, 50));
    expect(trainingDialogues(8, 50)).not.toEqual(TRAIN.slice(0, 50));
  });

  it('covers every category, tool errors, follow-ups and multi-turn dialogues', () => {
    const ex = exchanges(TRAIN);
    expect(new Set(ex.map((e) => e.category)).size).toBe(CATEGORIES.length);
    expect(ex.filter((e) => e.error).length).toBeGreaterThan(20);
    expect(ex.filter((e) => e.followUp).length).toBeGreaterThan(20);
    expect(TRAIN.filter((d) => d.exchanges.length > 1).length).toBeGreaterThan(100);
    expect(TRAIN.filter((d) => d.system !== null).length).toBeGreaterThan(100);
  });

  it('never uses a held-out or test template, a held-out or test subject or a new name', () => {
    const heldOutTemplates = Object.values(TEMPLATES).flatMap((t) => [...t.heldOut, ...t.test]).map(templateRegex);
    const heldOutQuestions = new Set([...CHAT.heldOut, ...CHAT.test].map((c) => c.question).concat(DATE_QUESTIONS.heldOut, DATE_QUESTIONS.test));
    const forbidden: Partial<Record<Exchange['category'], Set<string>>> = {
      population: new Set([...POPULATION_CITIES.heldOut, ...POPULATION_CITIES.test, ...NEW_CITIES].map((c) => c.name)),
      weather: new Set([...WEATHER_CITIES.heldOut, ...WEATHER_CITIES.test, ...NEW_CITIES].map((c) => c.name)),
      capital: new Set([...COUNTRIES.heldOut, ...COUNTRIES.test].map((c) => c.name)),
      winner: new Set(EVENTS.heldOut.map((e) => e.name)),
    };
    for (const ex of exchanges(TRAIN)) {
      expect(heldOutTemplates.some((re) => re.test(ex.question)), ex.question).toBe(false);
      expect(heldOutQuestions.has(ex.question)).toBe(false);
      const subject = querySubject(ex);
      if (subject !== null) expect(forbidden[ex.category]?.has(subject) ?? false, `${ex.category}: ${subject}`).toBe(false);
      if (ex.category === 'reverse') expect(WORDS.heldOut.some((w) => ex.call!.includes(`"${w}"`))).toBe(false);
    }
  });

  it('never mentions a new name anywhere, and the model writes every held-out subject in training in another role', () => {
    const text = TRAIN.map((d) => renderPrompt(dialogueConversation(d))).join('\n');
    for (const name of [...NEW_CITIES.map((c) => c.name), ...EVENTS.heldOut.map((e) => e.name)]) expect(containsValue(text, name), name).toBe(false);
    // Held-out words may occur as ordinary words ("travel guide"), never as the string to reverse.
    for (const word of WORDS.heldOut) expect(text.includes(`"${word}"`), word).toBe(false);
    for (const c of [...POPULATION_CITIES.heldOut, ...POPULATION_CITIES.test]) expect(WEATHER_CITIES.train).toContainEqual(c);
    for (const c of [...WEATHER_CITIES.heldOut, ...WEATHER_CITIES.test]) expect(POPULATION_CITIES.train).toContainEqual(c);
    // In the real corpus, every held-out and test subject is written by the model in another role.
    const written = exchanges(trainingDialogues(CORPUS_SEED, CORPUS_DIALOGUES)).map((ex) => `${ex.call ?? ''}\n${ex.answer}`).join('\n');
    for (const c of [...POPULATION_CITIES.heldOut, ...POPULATION_CITIES.test]) expect(written.includes(`query="weather in ${c.name}"`), c.name).toBe(true);
    for (const c of [...WEATHER_CITIES.heldOut, ...WEATHER_CITIES.test]) expect(written.includes(`query="population of ${c.name}"`), c.name).toBe(true);
    for (const c of COUNTRIES.heldOut) expect(TEAM_COUNTRIES).toContain(c.name);
    for (const c of [...COUNTRIES.heldOut, ...COUNTRIES.test]) expect(written.includes(`query="population of ${c.name}"`), c.name).toBe(true);
  });

  it.each(['heldOut', 'test'] as const)('%s dialogues use %s templates, and %s subjects where the category has them', (part) => {
    const allowed: Partial<Record<Exchange['category'], Set<string>>> = {
      population: new Set(POPULATION_CITIES[part].map((c) => c.name)),
      weather: new Set(WEATHER_CITIES[part].map((c) => c.name)),
      capital: new Set(COUNTRIES[part].map((c) => c.name)),
    };
    for (const ex of exchanges(dialogues(part, 300))) {
      const kind = ex.followUp ? 'followUp' : ex.category;
      if (kind in TEMPLATES) {
        const own = TEMPLATES[kind as keyof typeof TEMPLATES];
        expect(own[part].map(templateRegex).some((re) => re.test(ex.question)), ex.question).toBe(true);
        expect(own.train.includes(ex.question as never)).toBe(false);
      } else if (ex.category === 'chat') {
        expect(CHAT[part].map((c) => c.question)).toContain(ex.question);
      } else if (ex.category === 'date') {
        expect(DATE_QUESTIONS[part]).toContain(ex.question);
      }
      const subject = querySubject(ex);
      if (subject !== null && allowed[ex.category]) expect(allowed[ex.category]!.has(subject), `${ex.category}: ${subject}`).toBe(true);
    }
  });

  it.each(['train', 'heldOut', 'heldOutEntities', 'newNames', 'test'] as const)('%s: every dialogue renders and its assistant text parses back to the intended call and answer', (mode) => {
    const weights = mode === 'newNames' ? { capital: 0 } : {};
    const rng = new Rng(5);
    for (const d of mode === 'train' ? TRAIN.slice(0, 400) : Array.from({ length: 300 }, () => generateDialogue(rng, { mode, weights }))) {
      expect(() => renderIds(dialogueConversation(d), tokenizer)).not.toThrow();
      for (const ex of d.exchanges) {
        if (ex.call !== null) {
          const stop = ex.tool === 'custom' ? 'eot' : 'eom';
          const call = parseAssistantOutput(ex.tool === 'custom' ? `${ex.call}<|eot_id|>` : `<|python_tag|>${ex.call}<|eom_id|>`);
          expect(call.toolCalls).toEqual([ex.expectedCall]);
          expect(call.stop).toBe(stop);
          expect(call.content).toBe('');
        }
        const answer = parseAssistantOutput(`${ex.answer}<|eot_id|>`);
        expect(answer).toEqual({ content: ex.answer, toolCalls: [], stop: 'eot' });
        for (const v of ex.values) expect(containsValue(ex.answer, v), `${v} in ${ex.answer}`).toBe(true);
      }
    }
  });

  it('puts the loss on assistant bodies and their terminators only', () => {
    for (const d of TRAIN.slice(0, 100)) {
      const { ids, loss } = trainingExample(d, tokenizer);
      expect(ids).toEqual(renderIds(dialogueConversation(d), tokenizer));
      const expected = d.exchanges.flatMap((ex) => [
        ...(ex.call === null ? [] : ex.tool === 'custom' ? [`${ex.call}<|eot_id|>`] : [`<|python_tag|>${ex.call}<|eom_id|>`]),
        `${ex.answer}<|eot_id|>`,
      ]);
      expect(loss.map(([a, b]) => tokenizer.decode(ids.slice(a, b)))).toEqual(expected);
    }
  });

  it('writes tool results in the real tools\' shapes', () => {
    for (const ex of exchanges(TRAIN)) {
      if (ex.tool === null) {
        expect(ex.result).toBeNull();
      } else if (ex.error) {
        // The loop's own text of the failure: JSON with an error (or a note), or local math's plain refusal.
        const text = ex.result as string;
        expect(typeof text).toBe('string');
        if (text.startsWith('{')) expect(Object.keys(JSON.parse(text) as object)).toEqual(expect.arrayContaining([expect.stringMatching(/^(error|note)$/)]));
        else expect(text).toBe(FAILURE_TEXTS.localMathCannot());
      } else if (ex.tool === 'custom') {
        expect(Object.keys(ex.result as object)).toEqual([...Object.keys(ex.expectedCall!.arguments), ...Object.keys(ex.result as object).slice(Object.keys(ex.expectedCall!.arguments).length)]);
      } else if (ex.tool === 'brave_search') {
        const r = ex.result as { query: string; source?: string; results: Array<Record<string, string>> };
        // The service's shape, or the local index's (src/tools/local-search.ts): a source, no ages.
        if (r.source === undefined) expect(Object.keys(r)).toEqual(['query', 'results']);
        else {
          expect(Object.keys(r)).toEqual(['query', 'source', 'results']);
          expect(r.source).toBe('local index');
          for (const item of r.results) expect(Object.keys(item)).toEqual(['title', 'url', 'description']);
        }
        expect(r.query).toBe(ex.expectedCall!.arguments.query);
        expect(r.results.length).toBeGreaterThanOrEqual(1);
        expect(r.results.length).toBeLessThanOrEqual(5);
        for (const item of r.results) {
          expect(Object.keys(item).slice(0, 3)).toEqual(['title', 'url', 'description']);
          expect(item.url).toMatch(/^https:\/\//);
        }
        expect(r.results.filter((item) => ex.values.every((v) => containsValue(item.description!, v)))).toHaveLength(1);
      } else if (ex.tool === 'wolfram_alpha') {
        const text = ex.result as string;
        expect(text.startsWith(`Query:\n"${ex.expectedCall!.arguments.query as string}"\n\nInput`)).toBe(true);
        expect(text).toContain('\n\nResult:\n');
        expect(ex.result as string).toContain(ex.values[0]!);
      } else {
        expect(Object.keys(ex.result as object)).toEqual(['stdout']);
        expect((ex.result as { stdout: string }).stdout).toMatch(/\n$/);
      }
    }
  });

  it('writes each copied name with the same tokens in the question, the call and the answer', () => {
    for (const ex of exchanges(TRAIN).slice(0, 600)) {
      const subject = querySubject(ex);
      if (subject === null) continue;
      const name = tokenizer.encode(` ${subject}`);
      expect(isSublist(name, tokenizer.encode(ex.question)), ex.question).toBe(true);
      expect(isSublist(name, tokenizer.encode(ex.call!)), ex.call!).toBe(true);
      if (ex.error) continue;
      const result = tokenizer.encode(pythonJson(ex.result));
      for (const v of ex.values.filter((x) => /^[A-Za-z]/.test(x))) {
        const value = tokenizer.encode(` ${v}`);
        expect(isSublist(value, result), `${v} in the result`).toBe(true);
        expect(isSublist(value, tokenizer.encode(ex.answer)), `${v} in ${ex.answer}`).toBe(true);
      }
    }
  });
});

describe('the frozen-row plan', () => {
  const plan = frozenPlan(CORPUS_SEED, tokenizer);

  it('builds made-up names only from frozen pieces: no learned id, no id of a new name', () => {
    expect(plan.pieces.starts.length).toBeGreaterThan(5000);
    for (const id of plan.pieces.ids) {
      expect(plan.base.has(id)).toBe(false);
      expect(plan.newNameIds.has(id)).toBe(false);
    }
    const rng = new Rng(3);
    for (let i = 0; i < 300; i++) {
      const name = syntheticName(rng, plan.pieces);
      for (const id of tokenizer.encode(` ${name}`)) expect(plan.pieces.ids.has(id)).toBe(true);
      // Spelled without its space (a JSON string's start) it may tokenize otherwise, but never into a new name's ids.
      for (const id of tokenizer.encode(name)) expect(plan.newNameIds.has(id), `${name}: ${id}`).toBe(false);
    }
  });

  it('refuses a made-up name whose no-space spelling holds a forbidden id, though its spaced pieces are all frozen', () => {
    const spaced = tokenizer.encode(' Velmo');
    const onlyBare = tokenizer.encode('Velmo').filter((id) => !spaced.includes(id));
    expect(onlyBare.length).toBeGreaterThan(0);
    const open = frozenNamePieces(new Set(), tokenizer);
    const guarded = frozenNamePieces(new Set(), tokenizer, new Set(onlyBare));
    expect(open.accept!('Velmo')).toBe(true);
    expect(guarded.accept!('Velmo')).toBe(false);
  });

  it('keeps every new name out of the training corpus, while made-up names are in it', () => {
    expect(plan.newNameIds.size).toBeGreaterThan(0);
    const seen = new Set<number>();
    for (const d of trainingDialogues(CORPUS_SEED, 3000, tokenizer)) for (const id of trainingExample(d, tokenizer).ids) seen.add(id);
    expect([...plan.newNameIds].filter((id) => seen.has(id))).toEqual([]);
    expect([...seen].filter((id) => plan.pieces.ids.has(id)).length).toBeGreaterThan(500);
  });
});

describe('the corpus recipes', () => {
  it('learned: no made-up names, no remember exercises, no learned-ids.json (an earlier one removed), the recipe in corpus.json', () => {
    const plan = frozenPlan(CORPUS_SEED, tokenizer);
    const dir = mkdtempSync(join(tmpdir(), 'corpus-recipe-'));
    try {
      writeCorpus(dir, CORPUS_SEED, 300, tokenizer, 'frozen');
      expect(existsSync(join(dir, 'learned-ids.json'))).toBe(true);
      expect(JSON.parse(readFileSync(join(dir, 'corpus.json'), 'utf8')).recipe).toBe('frozen');
      const stats = writeCorpus(dir, CORPUS_SEED, 300, tokenizer, 'learned');
      expect(existsSync(join(dir, 'learned-ids.json'))).toBe(false);
      const meta = JSON.parse(readFileSync(join(dir, 'corpus.json'), 'utf8'));
      expect(meta.recipe).toBe('learned');
      expect(meta.frozen).toBeUndefined();
      expect(stats.byCategory.remember).toBe(0);
      expect(stats.byCategory.custom).toBeGreaterThan(0);
      const ids = new Set(readFileSync(join(dir, 'train.jsonl'), 'utf8').trim().split('\n').flatMap((l) => (JSON.parse(l) as { ids: number[] }).ids));
      expect([...ids].filter((id) => plan.pieces.ids.has(id) || plan.newNameIds.has(id))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('learned-hosts: learned with three times the host tools, still no made-up names and no learned-ids.json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'corpus-recipe-'));
    try {
      const learned = writeCorpus(dir, CORPUS_SEED, 600, tokenizer, 'learned');
      const hosts = writeCorpus(dir, CORPUS_SEED, 600, tokenizer, 'learned-hosts');
      expect(existsSync(join(dir, 'learned-ids.json'))).toBe(false);
      expect(JSON.parse(readFileSync(join(dir, 'corpus.json'), 'utf8')).recipe).toBe('learned-hosts');
      expect(hosts.byCategory.remember).toBe(0);
      expect(hosts.byCategory.custom).toBeGreaterThan(2 * learned.byCategory.custom);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('frozen-fewer-names: half the made-up names of frozen, the same learned ids from the frozen plan', () => {
    const plan = frozenPlan(CORPUS_SEED, tokenizer);
    const dir = mkdtempSync(join(tmpdir(), 'corpus-recipe-'));
    // How many ids of made-up name pieces the corpus holds, and its learned ids.
    const written = (recipe: 'frozen' | 'frozen-fewer-names') => {
      const stats = writeCorpus(dir, CORPUS_SEED, 1200, tokenizer, recipe);
      const ids = readFileSync(join(dir, 'train.jsonl'), 'utf8').trim().split('\n').flatMap((l) => (JSON.parse(l) as { ids: number[] }).ids);
      const learned = JSON.parse(readFileSync(join(dir, 'learned-ids.json'), 'utf8')) as number[];
      return { stats, pieces: ids.filter((id) => plan.pieces.ids.has(id)).length, learned };
    };
    try {
      const frozen = written('frozen');
      const fewer = written('frozen-fewer-names');
      expect(JSON.parse(readFileSync(join(dir, 'corpus.json'), 'utf8')).recipe).toBe('frozen-fewer-names');
      expect(fewer.stats.byCategory.remember).toBeGreaterThan(0);
      // The same remember exercises (another draw of them), all made-up names: the pieces fall by less than half
      // (1,200 dialogues: 4,322 → 2,614).
      expect(Math.abs(fewer.stats.byCategory.remember - frozen.stats.byCategory.remember)).toBeLessThan(0.25 * frozen.stats.byCategory.remember);
      expect(fewer.pieces).toBeLessThan(0.8 * frozen.pieces);
      expect(fewer.pieces).toBeGreaterThan(0.4 * frozen.pieces);
      expect(fewer.learned.every((id) => plan.base.has(id))).toBe(true);
      expect(frozen.learned.every((id) => plan.base.has(id))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('are told apart by name, and only known names are recipes', () => {
    expect(trainingDialogues(7, 50, tokenizer, 'learned')).not.toEqual(trainingDialogues(7, 50, tokenizer, 'frozen'));
    expect(isCorpusRecipe('learned') && isCorpusRecipe('frozen') && isCorpusRecipe('learned-hosts') && isCorpusRecipe('frozen-fewer-names')).toBe(true);
    expect(isCorpusRecipe('toString')).toBe(false);
  });
});

