/**
 * Dialogues of the micro model's world: a user question, the assistant's built-in call or code (ended
 * with eom), the tool's result, and an answer that uses the value (ended with eot) — or a direct answer
 * for small talk. Everything is a pure function of the Rng, so a seed fixes a corpus or an eval set.
 */
import { formatDate } from '../../src/format/system-block';
import type { Conversation, Message, ToolCall } from '../../src/format/types';
import { writeBuiltinCall, writeCustomCall } from '../../src/format/write-call';
import { customToolUse, unusedCustomTools } from './custom-tools';
import { plainEvent, variedEvent, type MadeUpEvent } from './synthetic-events';
import { syntheticName, type NamePieces } from './synthetic-names';
import type { Rng } from './rng';
import {
  codeResult, searchResponse, slug, trainingFailure, wolframText, type SearchResult, type ToolName,
} from './tool-results';
import {
  ALL_CITIES, ALL_COUNTRIES, CALLER_SYSTEM_MESSAGES, CHAT, CLUBS, COUNTRIES, DATE_QUESTIONS, EVENTS, FIRST_NAMES, LAST_NAMES, NEW_CITIES,
  NFL_TEAMS, NHL_TEAMS, POPULATION_SUBJECTS, TEAM_COUNTRIES, TEMPLATES, WEATHER_CITIES, WEATHER_CONDITIONS, WORDS,
  type City, type Country, type SplitName, type SportEvent, type WinnerKind,
} from './world';

/** Every tool is on: the system block lists brave_search and wolfram_alpha under `Environment: ipython`. */
export const BUILTIN_TOOLS: readonly string[] = ['brave_search', 'wolfram_alpha', 'code_interpreter'];

export const CATEGORIES = [
  'population', 'weather', 'capital', 'winner',
  'arithmetic', 'integral', 'derivative', 'sqrt', 'solve',
  'sumRange', 'factorial', 'power', 'sort', 'reverse',
  'chat', 'date', 'custom', 'remember',
] as const;
export type Category = (typeof CATEGORIES)[number];

/** The tool each category calls (null: answered directly). */
export const CATEGORY_TOOL: Readonly<Record<Category, ToolName | null>> = {
  population: 'brave_search', weather: 'brave_search', capital: 'brave_search', winner: 'brave_search',
  arithmetic: 'wolfram_alpha', integral: 'wolfram_alpha', derivative: 'wolfram_alpha', sqrt: 'wolfram_alpha', solve: 'wolfram_alpha',
  sumRange: 'code_interpreter', factorial: 'code_interpreter', power: 'code_interpreter', sort: 'code_interpreter', reverse: 'code_interpreter',
  chat: null, date: null, custom: 'custom', remember: null,
};

/** How often each category is drawn in the evaluation sets, and in the training corpus unless TRAIN_OPTIONS overrides it. */
export const CATEGORY_WEIGHTS: Readonly<Record<Category, number>> = {
  population: 11, weather: 10, capital: 9, winner: 9,
  arithmetic: 9, integral: 4, derivative: 4, sqrt: 3, solve: 4,
  sumRange: 4, factorial: 3.5, power: 3.5, sort: 4, reverse: 4,
  chat: 9, date: 4,
  // Copy exercises with made-up names: training only (TRAIN_OPTIONS). Before custom, which stays last: Rng.weighted
  // falls back to the last key on a rounding edge, so this order leaves every evaluation set's draws as they were.
  remember: 0,
  // Custom tools are drawn only where a set asks for them (TRAIN_OPTIONS, the customTools set).
  custom: 0,
};

/** Categories whose subjects have a held-out part: cities (per question kind) and countries. */
export const ENTITY_CATEGORIES: readonly Category[] = ['population', 'weather', 'capital'];

/** Categories with names that occur nowhere in training: cities, events, words. */
export const NEW_NAME_CATEGORIES: readonly Category[] = ['population', 'weather', 'winner', 'reverse'];

/** Categories a follow-up ("What about Bergen?") may continue. */
const FOLLOW_UP_CATEGORIES: readonly Category[] = ['population', 'weather', 'capital'];

/**
 * Where templates and entities come from: `train` (both from the training pools); `heldOut` (held-out
 * templates, and held-out subjects where the category has them: cities never asked about for that
 * question kind, countries never asked for their capital — names the model wrote in training in another
 * role); `heldOutEntities` (training templates, those held-out subjects); `newNames` (training
 * templates, names that occur nowhere in training: a diagnostic of what a micro model cannot do); `test`
 * (like `heldOut`, from the test parts: phrasings and subjects that no change of the corpus was chosen by).
 */
export type SplitMode = 'train' | 'heldOut' | 'heldOutEntities' | 'newNames' | 'test';

export interface Exchange {
  readonly category: Category;
  readonly tool: ToolName | null;
  readonly question: string;
  /** What follows `<|python_tag|>`: `brave_search.call(query="...")` or the code; null when answered directly. */
  readonly call: string | null;
  /** The call the parser must read from the assistant's text. */
  readonly expectedCall: ToolCall | null;
  /** The tool's result: a search response object, Wolfram text, a code result object or an error object. */
  readonly result: string | Record<string, unknown> | null;
  readonly answer: string;
  /** Strings the answer must contain. */
  readonly values: readonly string[];
  /** The tool failed (an error-as-data result) and the answer says so. */
  readonly error: boolean;
  /** A short follow-up question ("What about Bergen?") continuing the previous exchange's category. */
  readonly followUp: boolean;
}

export interface Dialogue {
  /** ISO date written into the system block. */
  readonly date: string;
  /** Built-in tools of the system block (default BUILTIN_TOOLS; the widget demo enables code_interpreter only). */
  readonly builtinTools?: readonly string[];
  /** Custom tools' schemas, shown in the first user turn; absent when none. */
  readonly tools?: readonly object[];
  /** The caller's own system message, after the generated block; null when none. */
  readonly system: string | null;
  readonly exchanges: readonly Exchange[];
}

export interface DialogueOptions {
  mode: SplitMode;
  /** Category weights (default CATEGORY_WEIGHTS); a category with weight 0 is never drawn. */
  weights?: Readonly<Partial<Record<Category, number>>>;
  /** Probability that a tool call fails (default 0.07). */
  errorRate?: number;
  /** Probabilities of 2 and of 3 exchanges (default 0.22 and 0.06). */
  twoExchanges?: number;
  threeExchanges?: number;
  /** Probability that a later exchange follows up on a population/weather/capital question (default 0.4). */
  followUpRate?: number;
  /** Probability that a city, country or event is a made-up name (synthetic-names.ts); default 0. */
  syntheticRate?: number;
  /** The pieces made-up names are built from (default: synthetic-names.ts namePieces()). */
  namePieces?: NamePieces;
  /** Made-up events take real events' varied forms, with made-up winners half the time (synthetic-events.ts); needs namePieces. */
  variedEvents?: boolean;
  /** Probability that a search result comes from the local index (`"source": "local index"`, no ages); default 0. */
  localIndexRate?: number;
  /** Probability that a dialogue without custom calls still declares host tools it does not need; default 0. */
  unusedToolsRate?: number;
  /** Probability that a host tool a question needs gets made-up tool and parameter names (custom-tools.ts renamer); default 0. */
  customRenameRate?: number;
  /**
   * Questions of the advertised intents (arithmetic, sums, small talk, capitals, populations) asked as people ask
   * them, and follow-ups that refer back ("there", "its") instead of naming (paraphrases.ts); default none.
   */
  paraphrases?: ParaphraseSource;
}

/** Where paraphrased exchanges come from, and how often (a recipe passes paraphrases.ts's; dialogues.ts does not import it). */
export interface ParaphraseSource {
  /** Probability per question (and per follow-up) of a paraphrase; 0 draws nothing extra. */
  rate: number;
  isCategory(category: Category): boolean;
  /** Every phrasing with its slots filled: their words get learned rows. */
  texts(): string[];
  exchange(rng: Rng, category: Category): Exchange;
  followUp(rng: Rng, prev: Exchange): Exchange | null;
}

interface Pools {
  templates: SplitName;
  entities: SplitName | 'new';
}

function pools(mode: SplitMode): Pools {
  if (mode === 'train') return { templates: 'train', entities: 'train' };
  if (mode === 'heldOut') return { templates: 'heldOut', entities: 'heldOut' };
  if (mode === 'heldOutEntities') return { templates: 'train', entities: 'heldOut' };
  if (mode === 'test') return { templates: 'test', entities: 'test' };
  return { templates: 'train', entities: 'new' };
}

/** The places (cities; for population, in training, countries too) a population or weather question may be about. */
function placePool(category: 'population' | 'weather', p: Pools): readonly string[] {
  if (p.entities === 'new') return NEW_CITIES.map((c) => c.name);
  return category === 'population' ? POPULATION_SUBJECTS[p.entities] : WEATHER_CITIES[p.entities].map((c) => c.name);
}

function countryPool(p: Pools): readonly Country[] {
  if (p.entities === 'new') throw new Error('no new country names: capital questions are not drawn in the newNames mode');
  return COUNTRIES[p.entities];
}

/** One dialogue: date, optional caller system message, 1–3 exchanges (a custom-tool question comes first, alone). */
export function generateDialogue(rng: Rng, options: DialogueOptions): Dialogue {
  const p = pools(options.mode);
  const date = randomDate(rng);
  const system = rng.chance(0.45) ? rng.weighted({ a: 30, b: 7.5, c: 7.5 }) : null;
  const systemText = system === null ? null : CALLER_SYSTEM_MESSAGES[{ a: 0, b: 1, c: 2 }[system]]!;
  const r = rng.next();
  let count = r < (options.threeExchanges ?? 0.06) ? 3 : r < (options.threeExchanges ?? 0.06) + (options.twoExchanges ?? 0.22) ? 2 : 1;
  const weights = { ...CATEGORY_WEIGHTS, ...options.weights };
  const laterWeights = { ...weights, custom: 0 };
  // A custom question comes first and alone: where nothing else may follow it (the customTools set), the dialogue
  // is one exchange, so no later custom question replaces the tools the first one's prompt declared.
  if (!Object.values(laterWeights).some((w) => w > 0)) count = 1;
  const exchanges: Exchange[] = [];
  let tools: object[] | undefined;
  let builtinTools: readonly string[] | undefined;
  for (let i = 0; i < count; i++) {
    const prev = exchanges[exchanges.length - 1];
    let ex: Exchange;
    const paraphrases = options.paraphrases;
    const paraphrase = paraphrases?.rate ?? 0;
    const referring = prev && paraphrases && paraphrase > 0 && rng.chance(paraphrase) ? paraphrases.followUp(rng, prev) : null;
    if (referring) {
      ex = referring;
    } else if (prev && FOLLOW_UP_CATEGORIES.includes(prev.category) && rng.chance(options.followUpRate ?? 0.4)) {
      ex = followUpExchange(rng, prev, p);
    } else {
      const category = rng.weighted(i === 0 ? weights : laterWeights);
      if (category === 'custom') {
        const drawn = customToolUse(rng, p.templates === 'test' || p.templates === 'heldOut' ? 'test' : 'train', options.customRenameRate ?? 0);
        tools = drawn.tools;
        // Half of them as the widget demo has it: code_interpreter only, one question.
        if (rng.chance(0.5)) {
          builtinTools = ['code_interpreter'];
          count = 1;
        }
        ex = customExchange(drawn.use);
      } else if (paraphrases && paraphrase > 0 && paraphrases.isCategory(category) && rng.chance(paraphrase)) {
        ex = paraphrases.exchange(rng, category);
      } else {
        ex = generateExchange(rng, category, p, date, options.syntheticRate ?? 0, options.localIndexRate ?? 0, options.namePieces, options.variedEvents ?? false);
      }
    }
    if (ex.tool !== null && rng.chance(options.errorRate ?? 0.07)) ex = withError(rng, ex);
    exchanges.push(ex);
  }
  if (tools === undefined && (options.unusedToolsRate ?? 0) > 0 && rng.chance(options.unusedToolsRate!)) tools = unusedCustomTools(rng);
  return { date, system: systemText, exchanges, ...(tools ? { tools } : {}), ...(builtinTools ? { builtinTools } : {}) };
}

/** A custom tool's call (JSON, ended with eot as Llama 3.1 does), the host's result and the answer. */
function customExchange(use: ReturnType<typeof customToolUse>['use']): Exchange {
  return {
    ...base, category: 'custom', tool: 'custom', question: use.question, call: writeCustomCall(use.name, use.args),
    expectedCall: { kind: 'custom', name: use.name, arguments: use.args }, result: use.result, answer: use.answer, values: use.values,
  };
}

/** A date between 2024 and 2027, ISO. */
export function randomDate(rng: Rng): string {
  const day = new Date(Date.UTC(2024, 0, 1) + rng.int(0, 4 * 365) * 86_400_000);
  return day.toISOString().slice(0, 10);
}

export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (_, k: string) => {
    if (!(k in values)) throw new Error(`template ${JSON.stringify(template)} needs {${k}}`);
    return String(values[k]);
  });
}

function question(rng: Rng, category: keyof typeof TEMPLATES, p: Pools, values: Record<string, string | number>): string {
  return fill(rng.pick(TEMPLATES[category][p.templates]), values);
}

export function builtin(tool: 'brave_search' | 'wolfram_alpha', query: string): Pick<Exchange, 'tool' | 'call' | 'expectedCall'> {
  return { tool, call: writeBuiltinCall(tool, { query }), expectedCall: { kind: 'builtin', name: tool, arguments: { query } } };
}

export function code(text: string): Pick<Exchange, 'tool' | 'call' | 'expectedCall'> {
  return { tool: 'code_interpreter', call: text, expectedCall: { kind: 'code', name: 'code_interpreter', arguments: { code: text } } };
}

const base = { error: false, followUp: false } as const;

/** A fresh exchange of `category`. */
export function generateExchange(rng: Rng, category: Category, p: Pools, date: string, syntheticRate = 0, localIndexRate = 0, pieces?: NamePieces, variedEvents = false): Exchange {
  const synthetic = syntheticRate > 0 && rng.chance(syntheticRate);
  const local = localIndexRate > 0 && rng.chance(localIndexRate);
  switch (category) {
    case 'population':
    case 'weather': {
      if (synthetic) {
        const city: City = { name: syntheticName(rng, pieces), country: syntheticName(rng, pieces) };
        return searchExchange(rng, category, city.name, question(rng, category, p, { city: city.name }), { city, local });
      }
      const place = rng.pick(placePool(category, p));
      return searchExchange(rng, category, place, question(rng, category, p, { city: place }), { local });
    }
    case 'capital': {
      const country = synthetic ? { name: syntheticName(rng, pieces), capital: syntheticName(rng, pieces) } : rng.pick(countryPool(p));
      return searchExchange(rng, category, country.name, question(rng, category, p, { country: country.name }), { country, local });
    }
    case 'winner':
      return winnerExchange(rng, p, synthetic, pieces, variedEvents);
    case 'custom':
      throw new Error('custom exchanges are drawn by generateDialogue (they need the dialogue\'s tools)');
    case 'arithmetic':
      return arithmeticExchange(rng, p);
    case 'integral': {
      const n = rng.int(2, 12);
      const m = n + 1;
      const query = `integrate x^${n} dx`;
      const value = `x^${m}/${m} + constant`;
      const result = wolframText(rng, query, { label: 'Input interpretation', text: `integral x^${n} dx` }, `integral x^${n} dx = ${value}`);
      const answer = fill(rng.pick(['The integral of x^{n} is {v}.', 'The antiderivative of x^{n} is {v}.', 'Integrating x^{n} gives {v}.']), { n, v: value });
      return { ...base, category, question: question(rng, 'integral', p, { n }), ...builtin('wolfram_alpha', query), result, answer, values: [value] };
    }
    case 'derivative': {
      const n = rng.int(2, 15);
      const value = n - 1 === 1 ? `${n} x` : `${n} x^${n - 1}`;
      const query = `derivative of x^${n}`;
      const result = wolframText(rng, query, { label: 'Input', text: `d/dx(x^${n})` }, `d/dx(x^${n}) = ${value}`);
      const answer = fill(rng.pick(['The derivative of x^{n} is {v}.', 'Differentiating x^{n} gives {v}.']), { n, v: value });
      return { ...base, category, question: question(rng, 'derivative', p, { n }), ...builtin('wolfram_alpha', query), result, answer, values: [value] };
    }
    case 'sqrt': {
      const r = rng.logInt(2, 999);
      const sq = r * r;
      const query = `square root of ${sq}`;
      const result = wolframText(rng, query, { label: 'Input', text: `sqrt(${sq})` }, String(r));
      const answer = fill(rng.pick(['The square root of {sq} is {r}.', 'The square root of {sq} equals {r}.']), { sq, r });
      return { ...base, category, question: question(rng, 'sqrt', p, { sq }), ...builtin('wolfram_alpha', query), result, answer, values: [String(r)] };
    }
    case 'solve': {
      const a = rng.int(2, 12);
      const x = rng.int(-20, 50);
      const b = rng.int(1, 99);
      const c = a * x + b;
      const query = `solve ${a}x + ${b} = ${c}`;
      const value = `x = ${x}`;
      const result = wolframText(rng, query, { label: 'Input interpretation', text: `solve ${a} x + ${b} = ${c}` }, value);
      const answer = fill(rng.pick(['The solution is {v}.', 'Solving {a}x + {b} = {c} gives {v}.']), { a, b, c, v: value });
      return { ...base, category, question: question(rng, 'solve', p, { a, b, c }), ...builtin('wolfram_alpha', query), result, answer, values: [value] };
    }
    case 'sumRange': {
      const n = rng.logInt(10, 9999);
      const v = String((n * (n + 1)) / 2);
      const answer = fill(rng.pick(['The sum of the numbers from 1 to {n} is {v}.', 'Adding the numbers from 1 to {n} gives {v}.']), { n, v });
      return { ...base, category, question: question(rng, 'sumRange', p, { n }), ...code(`print(sum(range(1, ${n} + 1)))`), result: codeResult(`${v}\n`), answer, values: [v] };
    }
    case 'factorial': {
      const n = rng.int(5, 15);
      let f = 1n;
      for (let i = 2n; i <= BigInt(n); i++) f *= i;
      const v = f.toString();
      const answer = fill(rng.pick(['The factorial of {n} is {v}.', 'The result is {v}.']), { n, v });
      return { ...base, category, question: question(rng, 'factorial', p, { n }), ...code(`import math\nprint(math.factorial(${n}))`), result: codeResult(`${v}\n`), answer, values: [v] };
    }
    case 'power': {
      // Results of at most 12 digits: longer numbers are more than a micro model copies reliably.
      const a = rng.int(2, 20);
      const b = rng.int(2, Math.max(2, Math.floor(12 / Math.log10(a))));
      const v = (BigInt(a) ** BigInt(b)).toString();
      const answer = fill(rng.pick(['{a} to the power of {b} is {v}.', 'The result is {v}.']), { a, b, v });
      return { ...base, category, question: question(rng, 'power', p, { a, b }), ...code(`print(${a} ** ${b})`), result: codeResult(`${v}\n`), answer, values: [v] };
    }
    case 'sort': {
      const xs = Array.from({ length: rng.int(4, 8) }, () => rng.int(1, 99));
      const list = xs.join(', ');
      const sorted = [...xs].sort((x, y) => x - y).join(', ');
      const answer = fill(rng.pick(['The sorted list is [{s}].', 'Sorted from smallest to largest: [{s}].']), { s: sorted });
      return {
        ...base, category, question: question(rng, 'sort', p, { list }), ...code(`print(sorted([${list}]))`), result: codeResult(`[${sorted}]\n`),
        answer, values: [`[${sorted}]`],
      };
    }
    case 'reverse': {
      const word = rng.pick(p.entities === 'new' ? WORDS.heldOut : WORDS.train);
      const rev = [...word].reverse().join('');
      const answer = fill(rng.pick(['The reversed string is "{r}".', 'The word "{w}" reversed is "{r}".']), { w: word, r: rev });
      return { ...base, category, question: question(rng, 'reverse', p, { word }), ...code(`print("${word}"[::-1])`), result: codeResult(`${rev}\n`), answer, values: [rev] };
    }
    case 'chat': {
      const item = rng.pick(CHAT[p.templates]);
      return { ...base, category, tool: null, question: item.question, call: null, expectedCall: null, result: null, answer: rng.pick(item.answers), values: [] };
    }
    case 'remember':
      return rememberExchange(rng, pieces);
    case 'date': {
      const today = formatDate(date);
      const answer = fill(rng.pick(['Today is {d}.', 'Today\'s date is {d}.', 'It is {d}.']), { d: today });
      return { ...base, category, tool: null, question: rng.pick(DATE_QUESTIONS[p.templates]), call: null, expectedCall: null, result: null, answer, values: [today] };
    }
  }
}

/**
 * A copy exercise with no tool: the user says 1–3 made-up names and the answer repeats them. Only the
 * training corpus draws it (with frozen pieces), so copying is practised on names no memory can supply.
 */
function rememberExchange(rng: Rng, pieces?: NamePieces): Exchange {
  if (!pieces) throw new Error('remember exchanges need the made-up names\' pieces (TRAIN_OPTIONS)');
  const [a, b, c] = [syntheticName(rng, pieces), syntheticName(rng, pieces), syntheticName(rng, pieces)];
  const item = rng.pick(REMEMBER);
  const template = rng.pick(item.answers);
  const values = (['a', 'b', 'c'] as const).filter((k) => template.includes(`{${k}}`)).map((k) => ({ a, b, c })[k]);
  return { ...base, category: 'remember', tool: null, question: fill(item.question, { a, b, c }), call: null, expectedCall: null, result: null, answer: fill(template, { a, b, c }), values };
}

/** Every remember question and answer with each name slot filled by `name`: the exercises' own words, for the frozen plan's learned ids. */
export function rememberTexts(name: string): string[] {
  return REMEMBER.flatMap((item) => [item.question, ...item.answers].map((t) => fill(t, { a: name, b: name, c: name })));
}

const REMEMBER: ReadonlyArray<{ question: string; answers: readonly string[] }> = [
  { question: 'My name is {a}.', answers: ['Nice to meet you, {a}!', 'Hello {a}, how can I help you today?'] },
  { question: 'I named my dog {a}. What is my dog called?', answers: ['Your dog is called {a}.', 'Your dog\'s name is {a}.'] },
  { question: 'Please remember the word {a}. Which word did I ask you to remember?', answers: ['You asked me to remember {a}.', 'The word is {a}.'] },
  { question: 'Our new product is called {a}. Can you write a short slogan for it?', answers: ['{a}: made for you.', 'Try {a} today!'] },
  { question: 'Please repeat after me: {a} {b}.', answers: ['{a} {b}.'] },
  { question: 'My friends {a} and {b} are visiting this weekend.', answers: ['Have a great weekend with {a} and {b}!', 'Enjoy your time with {a} and {b}.'] },
  { question: 'I live in {a}, and my sister lives in {b}. Where does my sister live?', answers: ['Your sister lives in {b}.', 'She lives in {b}.'] },
  { question: 'Our team is {a}, {b} and {c}. Who is on the team?', answers: ['The team is {a}, {b} and {c}.', 'On the team: {a}, {b} and {c}.'] },
  { question: 'Put these names in a list: {a}, {b}, {c}.', answers: ['- {a}\n- {b}\n- {c}', '1. {a}\n2. {b}\n3. {c}'] },
];

/** A short follow-up continuing `prev`'s category with another entity of the same pool. */
function followUpExchange(rng: Rng, prev: Exchange, p: Pools): Exchange {
  const subject = (prev.expectedCall?.arguments.query as string | undefined)?.replace(/^(population of|weather in|capital of) /, '');
  let name: string;
  if (prev.category === 'capital') {
    name = pickOther(rng, countryPool(p).map((c: Country) => c.name), subject);
  } else {
    name = pickOther(rng, placePool(prev.category as 'population' | 'weather', p), subject);
  }
  const q = fill(rng.pick(TEMPLATES.followUp[p.templates]), { x: name });
  return { ...searchExchange(rng, prev.category as 'population' | 'weather' | 'capital', name, q), followUp: true };
}

function pickOther(rng: Rng, names: readonly string[], not: string | undefined): string {
  const pool = names.filter((n) => n !== not);
  return rng.pick(pool.length > 0 ? pool : names);
}

function cityOf(name: string): City {
  return ALL_CITIES.find((c) => c.name === name) ?? { name, country: 'its country' };
}

function countryOf(name: string): Country {
  return ALL_COUNTRIES.find((c) => c.name === name)!;
}

export function wiki(name: string): string {
  return `https://en.wikipedia.org/wiki/${name.replace(/^the /, '').replace(/ /g, '_')}`;
}

/** Digits grouped by commas: 1234567 → "1,234,567". */
export function withCommas(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function cityDistractors(city: City): SearchResult[] {
  const s = slug(city.name, '');
  return [
    { title: `${city.name} - Wikipedia`, url: wiki(city.name), description: `${city.name} is a city in ${city.country}, known for its history, culture and food.` },
    { title: `Visit ${city.name}: top things to do`, url: `https://www.visit${s}.com/`, description: `Plan your trip to ${city.name} with our guide to museums, parks and restaurants.` },
    { title: `${city.name} travel guide`, url: `https://www.lonelyplanet.com/${slug(city.country)}/${slug(city.name)}`, description: `Everything you need to know before visiting ${city.name}, ${city.country}.` },
    { title: `Hotels in ${city.name}`, url: `https://www.booking.com/city/${slug(city.name)}.html`, description: `Compare prices for hotels and apartments in ${city.name}.` },
    { title: `History of ${city.name}`, url: `${wiki(`History of ${city.name}`)}`, description: `The history of ${city.name} goes back many centuries.` },
  ];
}

/** A search response; from the local index (`"source": "local index"`, no ages, as src/tools/local-search.ts answers) when `local`. */
function respond(rng: Rng, query: string, answer: SearchResult, distractors: readonly SearchResult[], local: boolean): Record<string, unknown> {
  const r = searchResponse(rng, query, answer, distractors);
  if (!local) return { ...r };
  return { query: r.query, source: 'local index', results: r.results.map(({ title, url, description }) => ({ title, url, description })) };
}

/** A search exchange about `subject` asked as `q`, with a fresh value and fresh distractors. */
export function searchExchange(
  rng: Rng, category: 'population' | 'weather' | 'capital', subject: string, q: string,
  made: { city?: City; country?: Country; local?: boolean } = {},
): Exchange {
  const year = rng.int(2019, 2025);
  if (category === 'population' && ALL_COUNTRIES.some((c) => c.name === subject)) return countryPopulationExchange(rng, countryOf(subject), q, year, made.local ?? false);
  if (category === 'population') {
    const city = made.city ?? cityOf(subject);
    const pop = withCommas(rng.logInt(20_000, 15_000_000));
    const v = { city: city.name, country: city.country, pop, year };
    const answerResult: SearchResult = rng.pick([
      { title: fill('{city} population {year}', v), url: `https://worldpopulationreview.com/cities/${slug(city.country)}/${slug(city.name)}`, description: fill('The population of {city}, {country} is {pop} according to the latest estimate.', v) },
      { title: fill('Population of {city}', v), url: `https://www.citypopulation.de/en/${slug(city.country)}/${slug(city.name)}/`, description: fill('{city} is a city in {country} with a population of {pop}.', v) },
      { title: fill('{city} - Wikipedia', v), url: wiki(city.name), description: fill('As of {year}, {city} has a population of {pop} people.', v) },
      { title: fill('{city}, {country} - statistics', v), url: `https://www.statista.com/${slug(city.name)}-population`, description: fill('Population of {city}: {pop} (city proper, {year} estimate).', v) },
    ]);
    const query = `population of ${city.name}`;
    const answer = fill(rng.pick(['The population of {city} is {pop}.', 'According to the search results, {city} has a population of {pop}.', 'The latest estimate for {city} is {pop} people.']), v);
    const distractors = cityDistractors(city).filter((d) => d.title !== answerResult.title);
    return { ...base, category, question: q, ...builtin('brave_search', query), result: respond(rng, query, answerResult, distractors, made.local ?? false), answer, values: [pop] };
  }
  if (category === 'weather') {
    const city = made.city ?? cityOf(subject);
    const v = { city: city.name, country: city.country, temp: `${rng.int(-15, 38)}°C`, cond: rng.pick(WEATHER_CONDITIONS), h: rng.int(20, 100), w: rng.int(0, 60) };
    const answerResult: SearchResult = rng.pick([
      { title: fill('{city} weather today', v), url: `https://weather.com/weather/today/l/${slug(city.name)}`, description: fill('Currently {temp} and {cond} in {city}. Humidity {h}%, wind {w} km/h.', v) },
      { title: fill('Weather in {city}', v), url: `https://www.timeanddate.com/weather/${slug(city.country)}/${slug(city.name)}`, description: fill('Weather in {city} now: {temp}, {cond}. Wind {w} km/h.', v) },
      { title: fill('{city}, {country} current weather', v), url: `https://www.accuweather.com/en/${slug(city.name)}/current-weather`, description: fill('{city}, {country}: {cond} with a temperature of {temp}.', v) },
    ]);
    const distractors: SearchResult[] = [
      { title: fill('{city} 10-day forecast', v), url: `https://www.bbc.com/weather/${slug(city.name)}`, description: fill('Hourly and 10-day forecast for {city}, {country}, with radar and alerts.', v) },
      { title: fill('Climate of {city}', v), url: wiki(`Climate of ${city.name}`), description: fill('The climate of {city} has warm summers and cool winters.', v) },
      { title: fill('Weather radar for {country}', v), url: `https://www.weather-radar.com/${slug(city.country)}`, description: fill('Live weather radar and satellite images for {country}.', v) },
      ...cityDistractors(city).slice(0, 2),
    ];
    const query = `weather in ${city.name}`;
    const answer = fill(rng.pick(['Right now in {city} it is {temp} and {cond}.', 'The current weather in {city}: {temp} and {cond}.', 'In {city} it is {temp} at the moment, {cond}.']), v);
    return { ...base, category, question: q, ...builtin('brave_search', query), result: respond(rng, query, answerResult, distractors, made.local ?? false), answer, values: [v.temp, v.cond] };
  }
  const country = made.country ?? countryOf(subject);
  const v = { country: country.name, capital: country.capital, Country: capitalize(country.name) };
  const answerResult: SearchResult = rng.pick([
    { title: fill('{Country} - Wikipedia', v), url: wiki(country.name), description: fill('The capital of {country} is {capital}, which is also its largest city.', v) },
    { title: fill('Capital of {country}', v), url: `https://www.worldatlas.com/capitals/${slug(country.name)}`, description: fill('{Country} is a country whose capital city is {capital}.', v) },
    { title: fill('{Country} facts', v), url: `https://www.britannica.com/place/${slug(country.name)}`, description: fill('Quick facts about {country}: capital {capital}, official languages, currency and population.', v) },
  ]);
  const distractors: SearchResult[] = [
    { title: fill('{Country} travel guide', v), url: `https://www.lonelyplanet.com/${slug(country.name)}`, description: fill('Plan your trip to {country}: where to go, what to eat and when to visit.', v) },
    { title: fill('Flag of {country}', v), url: wiki(`Flag of ${country.name}`), description: fill('The national flag of {country}, its colors and its history.', v) },
    { title: fill('Economy of {country}', v), url: wiki(`Economy of ${country.name}`), description: fill('An overview of the economy of {country}, its main industries and trade.', v) },
    { title: fill('Languages of {country}', v), url: wiki(`Languages of ${country.name}`), description: fill('The languages spoken in {country}.', v) },
  ];
  const query = `capital of ${country.name}`;
  const answer = fill(rng.pick(['The capital of {country} is {capital}.', 'According to the search results, the capital of {country} is {capital}.']), v);
  return { ...base, category, question: q, ...builtin('brave_search', query), result: respond(rng, query, answerResult, distractors, made.local ?? false), answer, values: [country.capital] };
}

/** A population question about a country (training only: a second role for every country's name). */
function countryPopulationExchange(rng: Rng, country: Country, q: string, year: number, local: boolean): Exchange {
  const pop = withCommas(rng.logInt(300_000, 150_000_000));
  const v = { city: country.name, Country: capitalize(country.name), pop, year };
  const answerResult: SearchResult = rng.pick([
    { title: fill('{Country} population {year}', v), url: `https://worldpopulationreview.com/countries/${slug(country.name)}`, description: fill('The population of {city} is {pop} according to the latest estimate.', v) },
    { title: fill('{Country} - Wikipedia', v), url: wiki(country.name), description: fill('As of {year}, {city} has a population of {pop} people.', v) },
    { title: fill('Population of {city}', v), url: `https://www.statista.com/${slug(country.name)}-population`, description: fill('{Country} has a population of {pop} ({year} estimate).', v) },
  ]);
  const distractors: SearchResult[] = [
    { title: fill('{Country} travel guide', v), url: `https://www.lonelyplanet.com/${slug(country.name)}`, description: fill('Plan your trip to {city}: where to go, what to eat and when to visit.', v) },
    { title: fill('Economy of {city}', v), url: wiki(`Economy of ${country.name}`), description: fill('An overview of the economy of {city}, its main industries and trade.', v) },
    { title: fill('Languages of {city}', v), url: wiki(`Languages of ${country.name}`), description: fill('The languages spoken in {city}.', v) },
  ];
  const query = `population of ${country.name}`;
  const answer = fill(rng.pick(['The population of {city} is {pop}.', 'According to the search results, {city} has a population of {pop}.', 'The latest estimate for {city} is {pop} people.']), v);
  return { ...base, category: 'population', question: q, ...builtin('brave_search', query), result: respond(rng, query, answerResult, distractors, local), answer, values: [pop] };
}

export function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function winnerOf(rng: Rng, kind: WinnerKind): string {
  switch (kind) {
    case 'person': return `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
    case 'country': return rng.pick(TEAM_COUNTRIES);
    case 'club': return rng.pick(CLUBS);
    case 'nfl': return rng.pick(NFL_TEAMS);
    case 'nhl': return rng.pick(NHL_TEAMS);
  }
}

function winnerExchange(rng: Rng, p: Pools, synthetic = false, pieces?: NamePieces, variedEvents = false): Exchange {
  if (variedEvents && !pieces) throw new Error('varied events need the made-up names\' pieces');
  // Events have no held-out role: held-out winner questions differ by phrasing (and year) only.
  const madeUp: MadeUpEvent | undefined = !synthetic ? undefined : variedEvents ? variedEvent(rng, pieces!) : plainEvent(rng, pieces);
  const event: SportEvent = madeUp?.event ?? rng.pick(p.entities === 'new' ? EVENTS.heldOut : EVENTS.train);
  const year = rng.int(1990, 2025);
  const winner = madeUp?.winner ?? winnerOf(rng, event.winner);
  const v = { event: event.name, year, winner };
  const answerResult: SearchResult = rng.pick([
    { title: fill('{event} {year} - Wikipedia', v), url: wiki(`${year} ${event.name}`), description: fill('The {event} {year} was won by {winner}.', v) },
    { title: fill('{event} {year} results', v), url: `https://www.espn.com/${slug(event.name)}/${year}/results`, description: fill('In {year}, {winner} won the {event}.', v) },
    { title: fill('Who won the {event} in {year}?', v), url: `https://www.sportingnews.com/${slug(event.name)}-${year}-winner`, description: fill('Results of the {event} {year}: the winner was {winner}.', v) },
  ]);
  const distractors: SearchResult[] = [
    { title: fill('{event} - Wikipedia', v), url: wiki(event.name), description: fill('History, records and past results of the {event}.', v) },
    { title: fill('{event} {year}: highlights', v), url: `https://www.youtube.com/results?search_query=${slug(event.name, '+')}+${year}`, description: fill('Photos and highlights from the {event} {year}.', v) },
    { title: fill('How to watch the {event}', v), url: `https://www.tvguide.com/${slug(event.name)}`, description: fill('Dates, times and channels for the next {event}.', v) },
  ];
  const query = `winner of the ${event.name} ${year}`;
  const answer = fill(rng.pick(['The {event} in {year} was won by {winner}.', 'The winner of the {event} in {year} was {winner}.']), v);
  return {
    ...base, category: 'winner', question: question(rng, 'winner', p, { event: event.name, year }), ...builtin('brave_search', query),
    result: { ...searchResponse(rng, query, answerResult, distractors) }, answer, values: [winner],
  };
}

function arithmeticExchange(rng: Rng, p: Pools): Exchange {
  const op = rng.pick(['+', '-', '*', '/'] as const);
  let a: number;
  let b: number;
  let value: number;
  if (op === '/') {
    b = rng.int(2, 99);
    value = rng.logInt(2, 9999);
    a = b * value;
  } else if (op === '*') {
    a = rng.logInt(2, 9999);
    b = rng.logInt(2, 999);
    value = a * b;
  } else {
    a = rng.logInt(2, 99_999);
    b = rng.logInt(2, 99_999);
    value = op === '+' ? a + b : a - b;
  }
  const query = `${a} ${op} ${b}`;
  const input = op === '*' ? `${a}×${b}` : op === '/' ? `${a}/${b}` : query;
  const result = wolframText(rng, query, { label: 'Input', text: input }, String(value));
  const v = { a, b, op, v: value };
  const answer = fill(rng.pick(['{a} {op} {b} = {v}.', 'The result of {a} {op} {b} is {v}.', '{a} {op} {b} equals {v}.']), v);
  return { ...base, category: 'arithmetic', question: question(rng, 'arithmetic', p, v), ...builtin('wolfram_alpha', query), result, answer, values: [String(value)] };
}

/** The same exchange, but the tool failed (any failure the runtime can produce) and the answer says so. */
export function withError(rng: Rng, ex: Exchange): Exchange {
  if (ex.tool === null) return ex;
  const failure = trainingFailure(rng, ex.tool);
  const m = failure.message;
  const verb: Record<ToolName, string> = { brave_search: 'search the web', wolfram_alpha: 'ask Wolfram Alpha', code_interpreter: 'run the code', custom: `use ${ex.expectedCall?.name ?? 'the tool'}` };
  const failed: Record<ToolName, string[]> = {
    brave_search: ['Sorry, the search failed: "{m}". Please try again later.', 'I could not search the web right now ("{m}").'],
    wolfram_alpha: ['Sorry, Wolfram Alpha returned an error: "{m}".', 'I could not get a result from Wolfram Alpha ("{m}").'],
    code_interpreter: ['Sorry, the code could not run: "{m}".', 'The code interpreter failed ("{m}"). Please try again.'],
    custom: ['Sorry, I could not get that information: "{m}".', 'The tool failed ("{m}"). Please try again later.'],
  };
  const declined = ['OK, I did not {verb} ("{m}").', 'Understood: I did not {verb}, so I cannot answer that ("{m}").'];
  // A long message is summed up, not quoted: a micro model copies long texts unreliably.
  const quote = m.length <= 100;
  const template = quote
    ? rng.pick(failure.declined ? declined : failed[ex.tool])
    : rng.pick(failure.declined ? ['OK, I did not {verb}.'] : ['Sorry, I could not {verb} right now. Please try again later.', 'The tool is not available at the moment, so I cannot answer that.']);
  return { ...ex, result: failure.content, answer: fill(template, { m, verb: verb[ex.tool] }), values: quote ? [m] : [], error: true };
}

/** Whether `text` contains `value` as a whole: not glued to a letter or digit on either side ("Tunis" is not in "Tunisia"). */
export function containsValue(text: string, value: string): boolean {
  const glued = /[\p{L}\p{N}]/u;
  for (let i = text.indexOf(value); i >= 0; i = text.indexOf(value, i + 1)) {
    const before = text[i - 1];
    const after = text[i + value.length];
    const startsWord = glued.test(value[0] ?? '');
    const endsWord = glued.test(value[value.length - 1] ?? '');
    if ((!startsWord || before === undefined || !glued.test(before)) && (!endsWord || after === undefined || !glued.test(after))) return true;
  }
  return false;
}

/** The messages of one exchange as the model writes them. */
export function exchangeMessages(ex: Exchange): Message[] {
  const out: Message[] = [{ role: 'user', content: ex.question }];
  if (ex.call !== null) {
    // Built-in and code calls follow <|python_tag|> and end with eom; a custom call is JSON ended with eot.
    if (ex.tool === 'custom') out.push({ role: 'assistant', content: '', raw: ex.call, stop: 'eot' });
    else out.push({ role: 'assistant', content: '', raw: `<|python_tag|>${ex.call}`, stop: 'eom' });
    out.push({ role: 'ipython', content: ex.result ?? '' });
  }
  out.push({ role: 'assistant', content: '', raw: ex.answer, stop: 'eot' });
  return out;
}

/** The render options every dialogue uses: all tools on, the dialogue's date. */
export function dialogueOptions(d: Pick<Dialogue, 'date' | 'builtinTools' | 'tools'>): Pick<Conversation, 'builtinTools' | 'date' | 'tools'> {
  return { builtinTools: [...(d.builtinTools ?? BUILTIN_TOOLS)], date: d.date, ...(d.tools ? { tools: [...d.tools] } : {}) };
}

/** The whole dialogue as a conversation (no generation prompt). */
export function dialogueConversation(d: Dialogue): Conversation {
  const messages: Message[] = d.system === null ? [] : [{ role: 'system', content: d.system }];
  for (const ex of d.exchanges) messages.push(...exchangeMessages(ex));
  return { ...dialogueOptions(d), messages, addGenerationPrompt: false };
}
