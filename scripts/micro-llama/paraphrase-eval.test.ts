import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { renderIds } from '../../src/format/render';
import { loadTokenizer } from '../../src/format/tokenizer/load-node';
import type { ParsedOutput, ToolCall } from '../../src/format/types';
import { CORPUS_SEED, frozenPlan, recipeWordIds, trainingDialogues } from './corpus';
import { dialogueOptions, generateDialogue } from './dialogues';
import {
  acceptsCall, EVAL_CAPITAL_COUNTRIES, EVAL_POPULATION_PLACES, EVAL_TEMPLATES, historyMessages, isEvalNumber, normalizeArithmetic,
  PARAPHRASE_COUNTS, PARAPHRASE_INTENTS, paraphraseSet, type ParaphraseItem,
} from './paraphrase-eval';
import { scoreParaphrase } from './paraphrase-score';
import { PARAPHRASE_GREETINGS, paraphraseExchange, PARAPHRASES, paraphraseSource, REFERRING_FOLLOW_UPS } from './paraphrases';
import { BROAD_PHRASINGS } from './paraphrases-broad';
import { Rng } from './rng';
import { ALL_CITIES, ALL_COUNTRIES, CHAT, TEMPLATES } from './world';

const tokenizer = loadTokenizer();
const SET = paraphraseSet();
const norm = (q: string) => q.trim().toLowerCase();

const escape = (text: string) => text.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
const NAMES = `(?:${[...ALL_CITIES.map((c) => c.name), ...ALL_COUNTRIES.map((c) => c.name)].map(escape).join('|')})`;

/** What each template slot can hold: numbers are digits, an operator one of the corpus's four, a place one of the world's; anything else any text. */
const SLOTS: Record<string, string> = {
  a: '-?\\d+', b: '-?\\d+', c: '-?\\d+', n: '\\d+', sq: '\\d+', year: '\\d{4}', op: '[-+*/]', list: '[\\d, ]+', word: '\\w+', city: NAMES, country: NAMES, x: NAMES,
};

/** A template as a case-insensitive regex matching every question it can produce. */
function templateRegex(template: string): RegExp {
  const parts = template.split(/(\{\w+\})/);
  return new RegExp(`^${parts.map((p) => (/^\{\w+\}$/.test(p) ? SLOTS[p.slice(1, -1)] ?? '.+' : escape(p))).join('')}$`, 'i');
}

/** The prompt the model first sees for an item: its history and its question, with the generation prompt. */
function prompt(item: ParaphraseItem): number[] {
  const messages = [...historyMessages(item), { role: 'user' as const, content: item.question }];
  return renderIds({ ...dialogueOptions(item.dialogue), messages, addGenerationPrompt: true }, tokenizer);
}

const gen = (content: string, stop: 'eom' | 'eot', toolCalls: ToolCall[] = []): ParsedOutput => ({ content, stop, toolCalls } as unknown as ParsedOutput);
const wolfram = (query: string): ToolCall => ({ kind: 'builtin', name: 'wolfram_alpha', arguments: { query } });

describe('the paraphrase evaluation set', () => {
  it('is fixed: its size per intent, and the hash of its rendered prompts (changing the set is a new pre-registration)', () => {
    expect(SET.length).toBe(170);
    for (const intent of PARAPHRASE_INTENTS) expect(SET.filter((i) => i.intent === intent).length).toBe(PARAPHRASE_COUNTS[intent]);
    const hash = createHash('sha256');
    for (const item of SET) hash.update(JSON.stringify([item.intent, prompt(item), item.call, item.values]));
    expect(hash.digest('hex').slice(0, 16)).toBe('f42e14d2dd7ff191');
    expect(paraphraseSet()).toEqual(SET);
  });

  it('uses only its own numbers: every operand and count ends in 3 or 7', () => {
    for (const item of SET.filter((i) => i.intent === 'arithmetic' || i.intent === 'python')) {
      const numbers = item.question.match(/\d+/g)!.map(Number).filter((n) => n !== 1 && n !== 2);
      expect(numbers.length, item.question).toBeGreaterThan(0);
      for (const n of numbers) expect(isEvalNumber(n), item.question).toBe(true);
    }
  });

  it('holds no question the corpus produces: a large sample of the committed recipe and of the paraphrase recipe', () => {
    const evalQuestions = new Set(SET.flatMap((i) => [i.question, ...i.history.map((h) => h.question)]).map(norm));
    for (const recipe of ['mixed-name-pieces', 'paraphrases', 'paraphrases-broad'] as const) {
      const corpus = new Set(trainingDialogues(CORPUS_SEED, 20_000, tokenizer, recipe).flatMap((d) => d.exchanges.map((e) => norm(e.question))));
      expect([...evalQuestions].filter((q) => corpus.has(q)), recipe).toEqual([]);
    }
  }, 240_000);

  it('widens small talk with none of the evaluation\'s words: the broad recipe shares only the words run 34\'s lists already shared', () => {
    const words = (texts: readonly string[]) => new Set(texts.flatMap((q) => q.toLowerCase().match(/[a-z']+/g) ?? []));
    const evalChat = words(SET.filter((i) => i.intent === 'smallTalk').map((i) => i.question));
    const shared = (p: typeof PARAPHRASES) => [...words([...p.greetings, ...p.thanks])].filter((w) => evalChat.has(w)).sort();
    expect(shared(PARAPHRASES)).toEqual(['cheers', 'good', 'great', 'hello', 'hey', 'hi', 'much', 'so', 'thank', 'thanks', 'that', 'thx', 'you']);
    expect(shared(BROAD_PHRASINGS)).toEqual(shared(PARAPHRASES));
    expect(BROAD_PHRASINGS.greetings.length).toBeGreaterThan(3 * PARAPHRASES.greetings.length);
  });

  for (const [recipe, phrasings] of [['paraphrases', PARAPHRASES], ['paraphrases-broad', BROAD_PHRASINGS]] as const) {
    it(`shares no phrasing, small-talk word, lookup subject or number with the ${recipe} recipe's paraphrases`, () => {
      const templates = [...Object.values(phrasings.templates).flat(), ...Object.values(TEMPLATES).flatMap((t) => [...t.train]), ...Object.values(phrasings.followUps).flat()];
      const corpusTemplates = new Set(templates.map(norm));
      expect(Object.values(EVAL_TEMPLATES).flat().filter((t) => corpusTemplates.has(norm(t)))).toEqual([]);
      // No training template, whatever fills it, writes an evaluation question.
      const patterns = templates.map(templateRegex);
      for (const q of ['What is 12 * 48?', 'How many people live in Oslo?', 'what is 12 x 48', 'And the weather there?']) expect(patterns.some((r) => r.test(q)), q).toBe(true);
      expect(SET.flatMap((i) => [i.question, ...i.history.map((h) => h.question)]).filter((q) => patterns.some((r) => r.test(q)))).toEqual([]);
      const corpusChat = new Set([...phrasings.greetings, ...phrasings.thanks, ...CHAT.train.map((c) => c.question)].map(norm));
      expect(SET.filter((i) => i.intent === 'smallTalk' || i.intent === 'followUp').map((i) => i.question).filter((q) => corpusChat.has(norm(q)) || corpusTemplates.has(norm(q)))).toEqual([]);
      const rng = new Rng(77);
      for (let k = 0; k < 3000; k++) {
        const ex = paraphraseExchange(rng, rng.pick(['arithmetic', 'sumRange', 'capital', 'population'] as const), phrasings);
        if (ex.category === 'capital' || ex.category === 'population') {
          const subject = String(ex.expectedCall!.arguments.query).replace(/^(capital|population) of /, '');
          expect([...EVAL_CAPITAL_COUNTRIES, ...EVAL_POPULATION_PLACES]).not.toContain(subject);
        } else {
          const code = ex.category === 'sumRange' ? String(ex.expectedCall!.arguments.code) : String(ex.expectedCall!.arguments.query);
          const operands = code.replace(/range\(2, i\)|range\(1, |range\(2, |\+ 1\)|\^2/g, ' ').match(/\d+/g)!.map(Number);
          for (const n of operands) expect(isEvalNumber(n), `${ex.question} → ${code}`).toBe(false);
        }
      }
    });
  }
});

describe('scoring a paraphrase item', () => {
  const times = SET.find((i) => i.intent === 'arithmetic' && i.call?.includes(' * '))!;
  const [a, b] = times.call!.match(/\d+/g)!;
  const value = times.values[0]!;

  it('accepts the ways people write an operation, and nothing else', () => {
    expect(normalizeArithmetic('37 x 41')).toBe('37*41');
    expect(normalizeArithmetic('256 multiplied by 12?')).toBe('256*12');
    expect(normalizeArithmetic('17 squared')).toBe('17^2');
    for (const q of [`${a} * ${b}`, `${a}×${b}`, `${a} x ${b}`, `${a} times ${b}`]) expect(acceptsCall(times, wolfram(q)), q).toBe(true);
    for (const q of [`${a} + ${b}`, `${a}${b}`, `${a} * ${b} * 2`]) expect(acceptsCall(times, wolfram(q)), q).toBe(false);
    expect(acceptsCall(times, { kind: 'code', name: 'code_interpreter', arguments: { code: `print(${a} * ${b})` } })).toBe(false);
  });

  it('counts the full loop: right call, eom, the value in an answer ended with eot, no further call', () => {
    const call = wolfram(`${a} * ${b}`);
    expect(scoreParaphrase(times, [gen('', 'eom', [call]), gen(`${a} * ${b} = ${value}.`, 'eot')]).fullLoop).toBe(true);
    expect(scoreParaphrase(times, [gen('', 'eom', [call]), gen(`The result is ${a}.`, 'eot')]).fullLoop).toBe(false);
    expect(scoreParaphrase(times, [gen('', 'eom', [wolfram(`${a} + ${b}`)]), gen(`It is ${value}.`, 'eot')]).fullLoop).toBe(false);
    expect(scoreParaphrase(times, [gen(`It is ${value}.`, 'eot')]).fullLoop).toBe(false);
  });

  it('wants small talk answered in kind, with no call', () => {
    const hi = SET.find((i) => i.intent === 'smallTalk' && /^h/.test(i.question) && !/thank/.test(i.question))!;
    expect(scoreParaphrase(hi, [gen('Hello! How can I help you today?', 'eot')]).fullLoop).toBe(true);
    expect(scoreParaphrase(hi, [gen('You\'re welcome! Let me know if you need anything else.', 'eot')]).fullLoop).toBe(false);
    expect(scoreParaphrase(hi, [gen('', 'eom', [{ kind: 'builtin', name: 'brave_search', arguments: { query: 'hi' } }]), gen('Hello!', 'eot')]).fullLoop).toBe(false);
  });

  it('resolves a follow-up only when its query names the referent from the conversation', () => {
    const follow = SET.find((i) => i.intent === 'followUp' && i.call!.includes('population of'))!;
    const city = follow.call!.match(/population of ([^"]+)/)![1]!;
    const search = (query: string): ToolCall => ({ kind: 'builtin', name: 'brave_search', arguments: { query } });
    expect(acceptsCall(follow, search(`population of ${city}`))).toBe(true);
    expect(acceptsCall(follow, search('population ofand'))).toBe(false);
    expect(acceptsCall(follow, search(`weather in ${city}`))).toBe(false);
  });
});

describe('the paraphrase recipe', () => {
  it('leaves the other recipes\' corpora as they were and learns no id of the new-names evaluation', () => {
    const plan = frozenPlan(CORPUS_SEED, tokenizer);
    expect([...recipeWordIds('paraphrases', tokenizer)].filter((id) => plan.forbidden.has(id))).toEqual([]);
    expect(recipeWordIds('mixed-name-pieces', tokenizer).size).toBe(0);
    const rng = new Rng(5);
    const plain = Array.from({ length: 200 }, () => generateDialogue(rng, { mode: 'train' }));
    const again = new Rng(5);
    expect(Array.from({ length: 200 }, () => generateDialogue(again, { mode: 'train', paraphrases: paraphraseSource(0) }))).toEqual(plain);
    const para = trainingDialogues(CORPUS_SEED, 2000, tokenizer, 'paraphrases').flatMap((d) => d.exchanges);
    expect(para.filter((e) => PARAPHRASE_GREETINGS.includes(e.question)).length).toBeGreaterThan(10);
    expect(para.filter((e) => Object.values(REFERRING_FOLLOW_UPS).flat().includes(e.question as never)).length).toBeGreaterThan(10);
    // The broad recipe (run 35) learns run 34's words and its own, none of them the new-names evaluation's.
    const broadIds = recipeWordIds('paraphrases-broad', tokenizer);
    expect([...broadIds].filter((id) => plan.forbidden.has(id))).toEqual([]);
    expect([...recipeWordIds('paraphrases', tokenizer)].filter((id) => !broadIds.has(id))).toEqual([]);
    const broad = trainingDialogues(CORPUS_SEED, 2000, tokenizer, 'paraphrases-broad').flatMap((d) => d.exchanges);
    const added = BROAD_PHRASINGS.greetings.filter((g) => !PARAPHRASE_GREETINGS.includes(g));
    expect(broad.filter((e) => added.includes(e.question)).length).toBeGreaterThan(2 * para.filter((e) => PARAPHRASE_GREETINGS.includes(e.question)).length);
  }, 120_000);
});
