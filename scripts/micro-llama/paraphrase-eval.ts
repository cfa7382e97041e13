/**
 * The pre-registered paraphrase evaluation: questions asked the way people ask them, for each intent the demo
 * advertises, written apart from the corpus's templates (world.ts TEMPLATES and paraphrases.ts): its own
 * phrasings, its own small-talk words, and its own numbers (every operand and count ends in 3 or 7, a number the
 * corpus's paraphrases never draw; paraphrase-eval.test.ts checks both). Fixed seed, fixed size: the set is what
 * paraphrase-eval.test.ts hashes.
 *
 * What counts as right (the full loop): the right tool with the right argument shape (`accepts`), eom after the
 * call, then an answer with no further call that holds every expected value (or, for small talk, answers in kind:
 * no call at all, a greeting for a greeting, a "you're welcome" for thanks), ended with eot.
 */
import type { Message, ToolCall } from '../../src/format/types';
import { containsValue, exchangeMessages, fill, randomDate, searchExchange, type Dialogue, type Exchange } from './dialogues';
import { Rng } from './rng';
import { codeResult, wolframText } from './tool-results';
import { COUNTRIES, POPULATION_SUBJECTS, WEATHER_CITIES } from './world';

export const PARAPHRASE_INTENTS = ['arithmetic', 'python', 'smallTalk', 'lookup', 'followUp'] as const;
export type ParaphraseIntent = (typeof PARAPHRASE_INTENTS)[number];

export const PARAPHRASE_SEED = 4646;
/** Items per intent. */
export const PARAPHRASE_COUNTS: Readonly<Record<ParaphraseIntent, number>> = { arithmetic: 40, python: 30, smallTalk: 30, lookup: 40, followUp: 30 };

export interface ParaphraseItem {
  readonly intent: ParaphraseIntent;
  /** Date, tools and earlier turns (answered right, as the corpus writes them): only the last question is asked. */
  readonly dialogue: Pick<Dialogue, 'date' | 'system'>;
  readonly history: readonly Exchange[];
  readonly question: string;
  /** The tool a right answer calls (null: none). */
  readonly tool: 'brave_search' | 'wolfram_alpha' | 'code_interpreter' | null;
  /** The canonical call, for reports; `accepts` decides. */
  readonly call: string | null;
  /** The result the tool gives a call of the right shape. */
  readonly result: string | Record<string, unknown> | null;
  /** Every string the final answer must hold. */
  readonly values: readonly string[];
  /** What a right call names: Wolfram queries it may normalize to (normalizeArithmetic); numbers code must hold; words a search query must hold. */
  readonly shape: readonly string[];
  /** Small talk: the answer must match this. */
  readonly inKind?: RegExp;
}

/** Operands and counts of the evaluation: numbers ending in 3 or 7 (the corpus's paraphrases draw none of them). */
export function isEvalNumber(n: number): boolean {
  return n % 10 === 3 || n % 10 === 7;
}

const TWO_DIGITS = range(11, 99).filter(isEvalNumber);
const THREE_DIGITS = range(101, 999).filter(isEvalNumber);

function range(lo: number, hi: number): number[] {
  return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
}

/** The evaluation's own phrasings (`{a}`, `{b}`, `{n}`, `{x}` filled in). */
export const EVAL_TEMPLATES = {
  times: ['compute {a}*{b}', 'how much is {a} x {b}', '{a} multiplied by {b}?', "what's {a} × {b}?", '{a} times {b} is what?', 'what do you get if you multiply {a} by {b}?', 'quick one: {a} * {b}', 'can u do {a}x{b}'],
  plus: ["what's {a} plus {b}?", 'add {a} and {b} for me', 'compute {a} + {b} please'],
  minus: ['how much is {a} minus {b}?', 'take {b} away from {a}', "what's {a} - {b}"],
  squared: ["what's {a} squared?", 'compute {a}^2', 'how much is {a} to the second power?', '{a} squared = ?'],
  sum: ['use python to sum the numbers from 1 to {n}', 'write code that adds every integer between 1 and {n}', 'run a script to total 1 through {n}', 'python: sum of 1..{n}?', 'can you code up the sum of all numbers up to {n}?'],
  primes: ['write python that prints the primes below {n}', 'use python to list the prime numbers under {n}', 'run a script that finds all primes less than {n}', 'code: which numbers below {n} are prime?'],
  capital: ["what's {x}'s capital?", 'which city serves as the capital of {x}?', 'capital city of {x}?', 'do you know the capital of {x}', 'tell me the capital of {x} please'],
  population: ['how many people are living in {x}?', 'how big is the population of {x} these days?', "what's {x}'s population?", 'population of {x}?', 'roughly how many inhabitants does {x} have?'],
} as const;

const GREETINGS = ['hiya!', 'hey there, how\'s it going?', 'good evening!', 'hello friend', 'greetings!', 'yo, hi', 'hey, morning!', 'heya', 'hi hi', 'hello again!', 'evening, friend'];
const THANKS = ['cheers, that helps', 'thanks so much!', 'much appreciated', 'thank you kindly', 'perfect, thank you', 'awesome, thx', 'many thanks!', 'great stuff, thank u', 'ok thanks for that', 'nice one, cheers!'];
const GREETING_REPLY = /\b(hello|hi|hey|good (morning|afternoon|evening)|doing well|all good)\b/i;
const THANKS_REPLY = /\b(welcome|glad|pleasure)\b/i;

/** Follow-ups that refer back: `{kind}` of the referent the first question's answer named or asked about. */
const FOLLOW_UPS = {
  populationOfCapital: ['and how many people live there?', 'how big is that city?', 'what about its population?'],
  weatherInCapital: ["and what's the weather like there?", 'is it raining in that city right now?', 'how warm is it there today?'],
  capitalOfCountry: ['and what is its capital?', "what's the capital there?", 'which city is its capital?'],
} as const;

/** The evaluation's lookup subjects: training subjects (the model knows them), a fixed sample the corpus's paraphrases leave out. */
export const EVAL_CAPITAL_COUNTRIES: readonly string[] = ['Peru', 'Norway', 'Kenya', 'Vietnam', 'Chile', 'Jordan', 'Egypt', 'Canada', 'Latvia', 'Hungary'];
export const EVAL_POPULATION_PLACES: readonly string[] = ['Oslo', 'Valencia', 'Nagoya', 'Barcelona', 'Bristol', 'Melbourne', 'Porto', 'Denver', 'Mexico', 'Japan'];

/** A Wolfram query with spaces and case gone, and the ways people write an operation read as one: "37 x 41" → "37*41". */
export function normalizeArithmetic(query: string): string {
  return query.toLowerCase().replace(/multiplied by|times|×/g, '*').replace(/plus/g, '+').replace(/minus/g, '-')
    .replace(/squared|to the second power/g, '^2').replace(/\s+/g, '').replace(/(\d)x(\d)/g, '$1*$2').replace(/[?.=]+$/, '');
}

/** Whether `call` is the expected tool with the expected argument shape for `item`. */
export function acceptsCall(item: ParaphraseItem, call: ToolCall): boolean {
  if (item.tool === null) return false;
  if (item.tool === 'code_interpreter') {
    const code = call.kind === 'code' ? String(call.arguments.code ?? '') : '';
    return /\bprint\s*\(/.test(code) && item.shape.every((n) => new RegExp(`(?<![\\d.])${n}(?![\\d.])`).test(code));
  }
  if (call.kind !== 'builtin' || call.name !== item.tool) return false;
  const query = String(call.arguments.query ?? '');
  if (item.tool === 'wolfram_alpha') return item.shape.includes(normalizeArithmetic(query));
  return item.shape.every((s) => containsValue(query.toLowerCase(), s.toLowerCase()));
}

function arithmeticItem(rng: Rng): ParaphraseItem {
  const op = rng.weighted({ times: 5, plus: 1.5, minus: 1.5, squared: 2 });
  const a = rng.pick(op === 'squared' ? TWO_DIGITS : rng.chance(0.5) ? TWO_DIGITS : THREE_DIGITS);
  const b = op === 'squared' ? a : rng.pick(TWO_DIGITS);
  const value = op === 'times' || op === 'squared' ? a * b : op === 'plus' ? a + b : a - b;
  const symbol = { times: '*', plus: '+', minus: '-', squared: '^' }[op];
  const query = op === 'squared' ? `${a}^2` : `${a} ${symbol} ${b}`;
  const shape = op === 'squared' ? [`${a}^2`, `${a}*${a}`] : [`${a}${symbol}${b}`];
  return {
    intent: 'arithmetic', dialogue: { date: randomDate(rng), system: null }, history: [], question: fill(rng.pick(EVAL_TEMPLATES[op]), { a, b }),
    tool: 'wolfram_alpha', call: `wolfram_alpha.call(query="${query}")`, shape,
    result: wolframText(rng, query, { label: 'Input', text: op === 'times' ? `${a}×${b}` : query }, String(value)), values: [String(value)],
  };
}

function primesBelow(n: number): number[] {
  return range(2, n - 1).filter((p) => range(2, Math.floor(Math.sqrt(p))).every((d) => p % d !== 0));
}

function pythonItem(rng: Rng): ParaphraseItem {
  const date = randomDate(rng);
  if (rng.chance(0.6)) {
    const n = rng.pick([...TWO_DIGITS, ...THREE_DIGITS]);
    const v = String((n * (n + 1)) / 2);
    return {
      intent: 'python', dialogue: { date, system: null }, history: [], question: fill(rng.pick(EVAL_TEMPLATES.sum), { n }), tool: 'code_interpreter',
      call: `print(sum(range(1, ${n} + 1)))`, shape: [String(n)], result: codeResult(`${v}\n`), values: [v],
    };
  }
  const n = rng.pick(TWO_DIGITS.filter((x) => x <= 50));
  const list = `[${primesBelow(n).join(', ')}]`;
  return {
    intent: 'python', dialogue: { date, system: null }, history: [], question: fill(rng.pick(EVAL_TEMPLATES.primes), { n }), tool: 'code_interpreter',
    call: `print([i for i in range(2, ${n}) if all(i % k for k in range(2, i))])`, shape: [String(n)], result: codeResult(`${list}\n`), values: [list],
  };
}

function smallTalkItem(rng: Rng): ParaphraseItem {
  const thanks = rng.chance(0.5);
  return {
    intent: 'smallTalk', dialogue: { date: randomDate(rng), system: null }, history: [], question: rng.pick(thanks ? THANKS : GREETINGS),
    tool: null, call: null, shape: [], result: null, values: [], inKind: thanks ? THANKS_REPLY : GREETING_REPLY,
  };
}

/** A search question asked as `question`, scored by the subject and kind its query must name. */
function searchItem(rng: Rng, intent: 'lookup' | 'followUp', kind: 'population' | 'weather' | 'capital', subject: string, question: string, date: string, history: readonly Exchange[]): ParaphraseItem {
  const ex = searchExchange(rng, kind, subject, question);
  return {
    intent, dialogue: { date, system: null }, history, question, tool: 'brave_search', call: ex.call, shape: [kind === 'weather' ? 'weather' : kind, subject],
    result: ex.result, values: ex.values,
  };
}

function lookupItem(rng: Rng): ParaphraseItem {
  const capital = rng.chance(0.5);
  const subject = rng.pick(capital ? EVAL_CAPITAL_COUNTRIES : EVAL_POPULATION_PLACES);
  return searchItem(rng, 'lookup', capital ? 'capital' : 'population', subject, fill(rng.pick(EVAL_TEMPLATES[capital ? 'capital' : 'population']), { x: subject }), randomDate(rng), []);
}

function followUpItem(rng: Rng): ParaphraseItem {
  const date = randomDate(rng);
  const kind = rng.pick(['populationOfCapital', 'weatherInCapital', 'capitalOfCountry'] as const);
  if (kind === 'capitalOfCountry') {
    const country = rng.pick(EVAL_CAPITAL_COUNTRIES);
    const first = searchExchange(rng, 'population', country, fill(rng.pick(EVAL_TEMPLATES.population), { x: country }));
    return searchItem(rng, 'followUp', 'capital', country, rng.pick(FOLLOW_UPS[kind]), date, [first]);
  }
  const pool = kind === 'populationOfCapital' ? POPULATION_SUBJECTS.train : WEATHER_CITIES.train.map((c) => c.name);
  const countries = COUNTRIES.train.filter((c) => EVAL_CAPITAL_COUNTRIES.includes(c.name) && pool.includes(c.capital));
  const country = rng.pick(countries);
  const first = searchExchange(rng, 'capital', country.name, fill(rng.pick(EVAL_TEMPLATES.capital), { x: country.name }));
  return searchItem(rng, 'followUp', kind === 'populationOfCapital' ? 'population' : 'weather', country.capital, rng.pick(FOLLOW_UPS[kind]), date, [first]);
}

const MAKERS: Readonly<Record<ParaphraseIntent, (rng: Rng) => ParaphraseItem>> = {
  arithmetic: arithmeticItem, python: pythonItem, smallTalk: smallTalkItem, lookup: lookupItem, followUp: followUpItem,
};

/** The evaluation set: PARAPHRASE_COUNTS items of each intent, from PARAPHRASE_SEED (pure). */
export function paraphraseSet(): ParaphraseItem[] {
  const rng = new Rng(PARAPHRASE_SEED);
  return PARAPHRASE_INTENTS.flatMap((intent) => Array.from({ length: PARAPHRASE_COUNTS[intent] }, () => MAKERS[intent](rng)));
}

/** The messages before the item's question: its earlier exchanges as the corpus writes them. */
export function historyMessages(item: ParaphraseItem): Message[] {
  return item.history.flatMap((ex) => exchangeMessages(ex));
}
