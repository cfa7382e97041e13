/**
 * The corpus recipe `mixed-names`: made-up names whose pieces mix learned and frozen rows, and made-up
 * events of real events' forms (synthetic-names.ts mixedNamePieces, synthetic-events.ts variedEvent).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIRST_SPECIAL_ID } from '../../src/format/special-tokens';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import { CORPUS_SEED, frozenPlan, trainingDialogues, trainingExample, trainingOptions, writeCorpus } from './corpus';
import { Rng } from './rng';
import { plainEvent, variedEvent } from './synthetic-events';
import { mixedNamePieces, SENTENCE_WORDS, sentenceWordStartIds, syntheticName, worldNamePieceIds, type NamePieces } from './synthetic-names';
import { EVENTS, NEW_CITIES } from './world';

const tokenizer = loadTokenizer();
const plan = frozenPlan(CORPUS_SEED, tokenizer);
const mixed = mixedNamePieces(plan.pieces, plan.base, plan.forbidden, tokenizer);
const REAL_EVENTS = [...EVENTS.train, ...EVENTS.heldOut].map((e) => e.name);

describe('mixed made-up names', () => {
  it('mix learned and frozen pieces in any position, one-letter starts among them, and hold no id outside the plan', () => {
    const rng = new Rng(5);
    const names = Array.from({ length: 400 }, () => syntheticName(rng, mixed));
    let mixedNames = 0;
    let learnedFirst = 0;
    let frozenFirst = 0;
    let oneLetter = 0;
    for (const name of names) {
      const ids = tokenizer.encode(` ${name}`);
      for (const id of ids) expect(plan.base.has(id) || plan.pieces.ids.has(id), `${name}: ${id}`).toBe(true);
      for (const form of [` ${name}`, name]) for (const id of tokenizer.encode(form)) expect(plan.forbidden.has(id), `${name}: ${id}`).toBe(false);
      const learned = ids.map((id) => plan.base.has(id));
      if (learned.includes(true) && learned.includes(false)) {
        mixedNames++;
        if (learned[0]) learnedFirst++;
        else frozenFirst++;
      }
      if (tokenizer.decode([ids[0]!]).length === 2) oneLetter++; // " M": a space and one capital
    }
    expect(mixedNames).toBeGreaterThan(0.3 * names.length);
    expect(learnedFirst).toBeGreaterThan(20);
    expect(frozenFirst).toBeGreaterThan(20);
    expect(oneLetter).toBeGreaterThan(0);
  });

  it('refuse a name with a new name\'s id, though its other pieces are learned', () => {
    // " Bus" is Busan's frozen start (a new city): no made-up name may hold it.
    const [bus] = tokenizer.encode(' Busan');
    expect(plan.forbidden.has(bus!)).toBe(true);
    expect(mixed.accept!('Busan')).toBe(false);
    expect(mixed.accept!('Busanto')).toBe(false);
  });

  it('mixed-name-pieces: learned pieces from the world\'s names only, never the sentences\' words', () => {
    const fromNames = trainingOptions(CORPUS_SEED, tokenizer, 'mixed-name-pieces').namePieces!.learned!;
    const fromAll = trainingOptions(CORPUS_SEED, tokenizer, 'mixed-names').namePieces!.learned!;
    for (const word of ['What', 'Please', 'Can', 'Ask', 'How']) {
      expect(fromAll.starts).toContain(word);
      expect(fromNames.starts).not.toContain(word);
    }
    const world = worldNamePieceIds(tokenizer);
    for (const piece of [...fromNames.starts.map((s) => ` ${s}`), ...fromNames.continuations]) {
      const ids = tokenizer.encode(piece);
      expect(ids.length, piece).toBe(1);
      expect(world.has(ids[0]!), piece).toBe(true);
    }
    expect(fromNames.starts).toContain('London');
    // The new names are no source: Mombasa's learned " M" comes from other names, its "omb" from none.
    expect(NEW_CITIES.some((c) => c.name === 'Mombasa')).toBe(true);
    expect(fromAll.continuations).toContain('omb');
    expect(fromNames.continuations).not.toContain('omb');
  });

  it('mixed-names-no-sentence-words: every learned piece but the sentence words\' first pieces', () => {
    const fromAll = trainingOptions(CORPUS_SEED, tokenizer, 'mixed-names').namePieces!.learned!;
    const pool = trainingOptions(CORPUS_SEED, tokenizer, 'mixed-names-no-sentence-words').namePieces!.learned!;
    // Every listed word is written by the corpus (the list cannot rot into words it no longer has).
    const text = trainingDialogues(CORPUS_SEED, 400, tokenizer, 'mixed-names').map((d) => tokenizer.decode(trainingExample(d, tokenizer).ids)).join('\n');
    for (const word of SENTENCE_WORDS) expect(text.includes(word), word).toBe(true);
    const dropped = fromAll.starts.filter((s) => !pool.starts.includes(s));
    for (const word of ['What', 'Please', 'Can', 'Ask', 'How', 'Hum', 'Wol']) expect(dropped).toContain(word);
    // Only sentence words' first pieces leave; the names' and the events' starts (months, teams, " M") stay, and every continuation.
    const sentenceStarts = new Set([...sentenceWordStartIds(tokenizer)].map((id) => tokenizer.decode([id]).slice(1)));
    for (const start of dropped) expect(sentenceStarts.has(start), start).toBe(true);
    for (const kept of ['London', 'Cup', 'March', 'M', 'Japan']) expect(pool.starts).toContain(kept);
    expect(pool.continuations).toEqual(fromAll.continuations);
    expect(pool.continuations).toContain('omb');
    expect(dropped.length).toBeLessThan(40);
  });

  it('leave the frozen recipes\' draws as they were: without learned pieces, the frozen pools\' names for seed 1', () => {
    const rng = new Rng(1);
    const names = Array.from({ length: 6 }, () => syntheticName(rng, plan.pieces));
    expect(names).toEqual(['Basil', 'Hawkslantnotes', 'Fellowshiprobe', 'Onunersed', 'Fixicas', 'Circleended']);
  });
});

describe('varied made-up events', () => {
  const rng = new Rng(7);
  const events = Array.from({ length: 600 }, () => variedEvent(rng, mixed));

  it('take every form, ten kinds, and hold no real event\'s name', () => {
    const names = events.map((e) => e.event.name);
    for (const name of names) {
      expect(REAL_EVENTS.some((real) => name.includes(real)), name).toBe(false);
      expect(mixed.accept!(name), name).toBe(true);
    }
    expect(names.some((n) => n.startsWith('Tour de '))).toBe(true);
    expect(names.some((n) => /^(Women's|Men's|Junior) /.test(n))).toBe(true);
    expect(names.some((n) => n.split(' ').length === 3 && !/^(Women's|Men's|Junior|Tour) /.test(n))).toBe(true);
    const kinds = new Set(names.filter((n) => !n.startsWith('Tour de ')).map((n) => n.split(' ').at(-1)));
    expect(kinds.size).toBe(10);
  });

  it('are won by a made-up winner about half the time, of the event\'s winner kind', () => {
    const madeUp = events.filter((e) => e.winner !== undefined);
    expect(madeUp.length).toBeGreaterThan(0.35 * events.length);
    expect(madeUp.length).toBeLessThan(0.65 * events.length);
    for (const e of madeUp) {
      if (e.event.winner === 'club') expect(e.winner).toMatch(/^the [A-Z]/);
      if (e.event.winner === 'person') expect(e.winner).toMatch(/^[A-Z][a-z]+ [A-Z]/);
    }
  });

  it('fail with a clear error when the pieces accept no name, where plain events never ask', () => {
    const refusing: NamePieces = { ...mixed, accept: (name) => !name.includes(' ') && mixed.accept!(name) };
    expect(() => variedEvent(new Rng(1), refusing)).toThrow(/no accepted name in 100 draws/);
    expect(plainEvent(new Rng(1), plan.pieces).event.name).toMatch(/^[A-Z]\w* (Open|Marathon|Prize|Cup|Trophy)$/);
  });
});

describe('the mixed-names corpus', () => {
  it('keeps the held-out events and every new name\'s id out, its learned ids the frozen plan\'s', () => {
    expect(trainingOptions(CORPUS_SEED, tokenizer, 'mixed-names').variedEvents).toBe(true);
    const dialogues = trainingDialogues(CORPUS_SEED, 1200, tokenizer, 'mixed-names');
    const text = JSON.stringify(dialogues);
    for (const event of EVENTS.heldOut) expect(text.includes(event.name), event.name).toBe(false);
    const dir = mkdtempSync(join(tmpdir(), 'corpus-mixed-'));
    try {
      writeCorpus(dir, CORPUS_SEED, 1200, tokenizer, 'mixed-names');
      const corpus = JSON.parse(readFileSync(join(dir, 'corpus.json'), 'utf8'));
      expect(corpus.recipe).toBe('mixed-names');
      const ids = new Set(readFileSync(join(dir, 'train.jsonl'), 'utf8').trim().split('\n').flatMap((l) => (JSON.parse(l) as { ids: number[] }).ids));
      for (const id of ids) expect(plan.newNameIds.has(id)).toBe(false);
      const learned = JSON.parse(readFileSync(join(dir, 'learned-ids.json'), 'utf8')) as number[];
      expect(learned.length).toBeGreaterThan(2000);
      expect(learned.every((id) => plan.base.has(id) || id >= FIRST_SPECIAL_ID)).toBe(true);
      // Frozen pieces are still in it, if fewer: the copy circuit for frozen rows keeps its practice (1,200 dialogues: 743 distinct).
      expect([...ids].filter((id) => plan.pieces.ids.has(id)).length).toBeGreaterThan(500);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
