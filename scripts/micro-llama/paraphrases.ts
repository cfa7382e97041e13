/**
 * Training paraphrases (the `paraphrases` corpus recipe): questions of the demo's advertised intents asked the way
 * people ask them — arithmetic in words and symbols, squares, sums and primes in Python, greetings and thanks,
 * free lookups, and follow-ups that refer back ("there", "its", "that city") — answered with the corpus's own calls,
 * results and answers, so the trained call format stays exact.
 *
 * Written apart from the paraphrase evaluation (paraphrase-eval.ts): other phrasings and small-talk words, lookup
 * subjects outside its sample, and numbers it never uses (no operand or count ends in 3 or 7);
 * paraphrase-eval.test.ts checks that the two stay apart.
 */
import { wolframText, codeResult } from './tool-results';
import { builtin, code, fill, searchExchange, type Exchange, type ParaphraseSource } from './dialogues';
import { EVAL_CAPITAL_COUNTRIES, EVAL_POPULATION_PLACES, isEvalNumber } from './paraphrase-eval';
import type { Rng } from './rng';
import { COUNTRIES, GREETING_ANSWERS, POPULATION_SUBJECTS, THANKS_ANSWERS, WEATHER_CITIES } from './world';

/** The corpus's paraphrase phrasings (`{a}`, `{b}`, `{n}`, `{x}` filled in). */
export const PARAPHRASE_TEMPLATES = {
  times: ['Multiply {a} by {b}.', '{a} times {b}?', 'what is {a} x {b}', '{a}×{b}=?', 'calculate {a}*{b} please', '{a} multiplied by {b} equals what?', 'How much is {a} times {b}?', "What's {a} x {b}?", 'compute {a} × {b}'],
  plus: ['What is {a} plus {b}?', 'add {a} to {b}', 'sum of {a} and {b}?'],
  minus: ['What is {a} minus {b}?', 'subtract {b} from {a}', '{a} minus {b} please'],
  squared: ['What is {a} squared?', 'calculate {a}^2', '{a} squared?', 'square {a}', "what's {a}^2"],
  sum: ['Use Python to sum 1 to {n}.', 'write code that sums the integers 1 to {n}', 'run a script that adds up 1 to {n}', 'In Python, total the numbers 1 through {n}.', 'code the sum of the numbers up to {n}'],
  primes: ['Use Python to list the primes below {n}.', 'write code that prints every prime under {n}', 'run a script to find the primes less than {n}', 'Which numbers under {n} are prime? Use Python.'],
  capital: ['capital of {x}?', 'Which city is the capital of {x}?', "what's the capital city of {x}", "Do you know {x}'s capital?", 'Name the capital of {x}.'],
  population: ['how many people live in {x}', "What's the population of {x} right now?", "{x}'s population?", 'How many inhabitants does {x} have?', 'population {x}'],
} as const;

export const PARAPHRASE_GREETINGS: readonly string[] = ['hi', 'hello!', 'hey', 'Hi, how are you doing?', 'Hey hey!', 'Good day!', 'hello there!'];
export const PARAPHRASE_THANKS: readonly string[] = ['thanks', 'thank you', 'Thanks, that was helpful.', 'thx!', 'Great, thank you so much.', 'Cheers!'];

/** Follow-ups that name no subject: the referent is the previous exchange's. */
export const REFERRING_FOLLOW_UPS = {
  populationThere: ['How many people live there?', 'And the population there?', 'How big is it?'],
  weatherThere: ['And the weather there?', 'What is the weather like in that city?', 'Is it warm there now?'],
  capitalOfIt: ['What is its capital?', 'And its capital?', 'Which city is the capital there?'],
} as const;

const base = { error: false, followUp: false } as const;

/** The evaluation's lookup subjects, asked about in none of the corpus's paraphrases. */
const EVAL_SUBJECTS: readonly string[] = [...EVAL_CAPITAL_COUNTRIES, ...EVAL_POPULATION_PLACES];

/** A number in [lo, hi] that the evaluation never uses. */
function corpusNumber(rng: Rng, lo: number, hi: number): number {
  for (;;) {
    const n = rng.logInt(lo, hi);
    if (!isEvalNumber(n)) return n;
  }
}

/** A recipe's paraphrase word lists: phrasings per intent, small talk, referring follow-ups, and how often each operation is asked. */
export interface Phrasings {
  readonly templates: { readonly [K in keyof typeof PARAPHRASE_TEMPLATES]: readonly string[] };
  readonly greetings: readonly string[];
  readonly thanks: readonly string[];
  /** Probability that a small-talk paraphrase is thanks (else a greeting). */
  readonly thanksShare: number;
  readonly followUps: { readonly [K in keyof typeof REFERRING_FOLLOW_UPS]: readonly string[] };
  readonly operations: Readonly<Record<'times' | 'plus' | 'minus' | 'squared', number>>;
}

/** The `paraphrases` recipe's phrasings (run 34). */
export const PARAPHRASES: Phrasings = {
  templates: PARAPHRASE_TEMPLATES, greetings: PARAPHRASE_GREETINGS, thanks: PARAPHRASE_THANKS, thanksShare: 0.5,
  followUps: REFERRING_FOLLOW_UPS, operations: { times: 5, plus: 1.5, minus: 1.5, squared: 2 },
};

/** The categories a paraphrase may stand in for. */
export const PARAPHRASE_CATEGORIES = ['arithmetic', 'sumRange', 'chat', 'capital', 'population'] as const;
export type ParaphraseCategory = (typeof PARAPHRASE_CATEGORIES)[number];

export function isParaphraseCategory(c: string): c is ParaphraseCategory {
  return (PARAPHRASE_CATEGORIES as readonly string[]).includes(c);
}

/** The paraphrases as a dialogue option (dialogues.ts ParaphraseSource): a paraphrase at `rate` per question and per follow-up. */
export function paraphraseSource(rate: number, phrasings: Phrasings = PARAPHRASES): ParaphraseSource {
  return {
    rate, isCategory: isParaphraseCategory, texts: () => paraphraseTexts(phrasings),
    exchange: (rng, category) => paraphraseExchange(rng, category as ParaphraseCategory, phrasings), followUp: (rng, prev) => referringFollowUp(rng, prev, phrasings),
  };
}

/** A paraphrased exchange of `category`, with the call, result and answer the corpus writes for it. */
export function paraphraseExchange(rng: Rng, category: ParaphraseCategory, phrasings: Phrasings = PARAPHRASES): Exchange {
  const templates = phrasings.templates;
  switch (category) {
    case 'arithmetic': return arithmetic(rng, phrasings);
    case 'sumRange': return python(rng, phrasings);
    case 'chat': {
      const thanks = rng.chance(phrasings.thanksShare);
      return { ...base, category, tool: null, question: rng.pick(thanks ? phrasings.thanks : phrasings.greetings), call: null, expectedCall: null, result: null, answer: rng.pick(thanks ? THANKS_ANSWERS : GREETING_ANSWERS), values: [] };
    }
    case 'capital': {
      const country = rng.pick(COUNTRIES.train.filter((c) => !EVAL_SUBJECTS.includes(c.name)));
      return searchExchange(rng, 'capital', country.name, fill(rng.pick(templates.capital), { x: country.name }));
    }
    case 'population': {
      const place = rng.pick(POPULATION_SUBJECTS.train.filter((p) => !EVAL_SUBJECTS.includes(p)));
      return searchExchange(rng, 'population', place, fill(rng.pick(templates.population), { x: place }));
    }
  }
}

function arithmetic(rng: Rng, phrasings: Phrasings): Exchange {
  const op = rng.weighted(phrasings.operations);
  const a = op === 'squared' ? corpusNumber(rng, 2, 999) : corpusNumber(rng, 2, 9999);
  const b = op === 'squared' ? a : corpusNumber(rng, 2, op === 'times' ? 999 : 9999);
  const value = op === 'times' || op === 'squared' ? a * b : op === 'plus' ? a + b : a - b;
  const symbol = { times: '*', plus: '+', minus: '-', squared: '^' }[op];
  const query = op === 'squared' ? `${a}^2` : `${a} ${symbol} ${b}`;
  const result = wolframText(rng, query, { label: 'Input', text: op === 'times' ? `${a}×${b}` : query }, String(value));
  const answer = op === 'squared'
    ? fill(rng.pick(['{a} squared is {v}.', 'The square of {a} is {v}.']), { a, v: value })
    : fill(rng.pick(['{a} {op} {b} = {v}.', 'The result of {a} {op} {b} is {v}.']), { a, b, op: symbol, v: value });
  return { ...base, category: 'arithmetic', question: fill(rng.pick(phrasings.templates[op]), { a, b }), ...builtin('wolfram_alpha', query), result, answer, values: [String(value)] };
}

function primesBelow(n: number): number[] {
  const out: number[] = [];
  for (let p = 2; p < n; p++) if (out.every((d) => p % d !== 0)) out.push(p);
  return out;
}

/** Sums of 1..n and the primes below n, in Python (category sumRange: code over the numbers up to n). */
function python(rng: Rng, { templates }: Phrasings): Exchange {
  if (rng.chance(0.6)) {
    const n = corpusNumber(rng, 10, 9999);
    const v = String((n * (n + 1)) / 2);
    const answer = fill(rng.pick(['The sum of the numbers from 1 to {n} is {v}.', 'Adding the numbers from 1 to {n} gives {v}.']), { n, v });
    return { ...base, category: 'sumRange', question: fill(rng.pick(templates.sum), { n }), ...code(`print(sum(range(1, ${n} + 1)))`), result: codeResult(`${v}\n`), answer, values: [v] };
  }
  const n = corpusNumber(rng, 10, 60);
  const list = `[${primesBelow(n).join(', ')}]`;
  const answer = fill(rng.pick(['The primes below {n} are {l}.', 'Primes less than {n}: {l}.']), { n, l: list });
  return {
    ...base, category: 'sumRange', question: fill(rng.pick(templates.primes), { n }),
    ...code(`print([i for i in range(2, ${n}) if all(i % k for k in range(2, i))])`), result: codeResult(`${list}\n`), answer, values: [list],
  };
}

/** A follow-up that refers back to `prev` (a capital or population exchange) without naming it; null when none fits. */
export function referringFollowUp(rng: Rng, prev: Exchange, phrasings: Phrasings = PARAPHRASES): Exchange | null {
  const followUps = phrasings.followUps;
  const subject = (prev.expectedCall?.arguments.query as string | undefined)?.replace(/^(population of|weather in|capital of) /, '');
  if (subject === undefined) return null;
  const weatherCities = WEATHER_CITIES.train.map((c) => c.name);
  if (prev.category === 'capital') {
    const capital = prev.values[0]!;
    const kinds = [...(POPULATION_SUBJECTS.train.includes(capital) ? ['population' as const] : []), ...(weatherCities.includes(capital) ? ['weather' as const] : [])];
    if (kinds.length === 0) return null;
    const kind = rng.pick(kinds);
    const q = rng.pick(followUps[kind === 'population' ? 'populationThere' : 'weatherThere']);
    return { ...searchExchange(rng, kind, capital, q), followUp: true };
  }
  if (prev.category === 'population' && COUNTRIES.train.some((c) => c.name === subject)) {
    return { ...searchExchange(rng, 'capital', subject, rng.pick(followUps.capitalOfIt)), followUp: true };
  }
  if (prev.category === 'population' && weatherCities.includes(subject)) {
    return { ...searchExchange(rng, 'weather', subject, rng.pick(followUps.weatherThere)), followUp: true };
  }
  return null;
}

/** Every paraphrase question and answer with its slots filled, for the recipe's learned ids (their words get learned rows). */
export function paraphraseTexts(phrasings: Phrasings = PARAPHRASES): string[] {
  const templates = [...Object.values(phrasings.templates).flat(), ...Object.values(phrasings.followUps).flat(), ...phrasings.greetings, ...phrasings.thanks];
  return [...templates, '{a} squared is {v}.', 'The square of {a} is {v}.', 'The primes below {n} are {l}.', 'Primes less than {n}: {l}.', 'print([i for i in range(2, {n}) if all(i % k for k in range(2, i))])']
    .map((t) => fill(t, { a: 12, b: 48, n: 40, v: 144, x: 'Oslo', l: '[2, 3, 5]' }));
}
