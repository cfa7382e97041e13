/**
 * Questions for unforced end-to-end tests of the micro model (models/micro-llama): training phrasings and
 * entities with values the model never saw, each with the exact result the test's fake tool returns and
 * what the final answer contains. e2e-cases.test.ts checks every case greedily through createNodeEngine
 * with a minimal loop (render → generate → parse → append the result → generate), so a retrained model
 * that loses one fails there first.
 */
import type { RenderOptions, ToolCall } from '../../src/format/types';
import { FAILURE_TEXTS } from '../../src/tools/failure-texts';
import { ToolError } from '../../src/tools/tool';
import { errorText } from '../../src/tools/tool-result';
import { BUILTIN_TOOLS } from './dialogues';

export interface MicroE2eCase {
  name: string;
  question: string;
  /** What parseAssistantOutput reads from the model's first message; null when it answers directly. */
  call: ToolCall | null;
  /** The fake tool's return value, inserted as the ipython content (objects as JSON with Python's separators). */
  result: string | Record<string, unknown> | null;
  /** Substrings of the final answer (which ends with eot). */
  answerContains: readonly string[];
}

/** How the cases are rendered: every built-in tool on (`Environment: ipython`, `Tools: brave_search, wolfram_alpha`), a fixed date. */
export const MICRO_E2E_RENDER_OPTIONS: Pick<RenderOptions, 'builtinTools' | 'date'> = {
  builtinTools: [...BUILTIN_TOOLS],
  date: '2026-08-11',
};

const search = (query: string): ToolCall => ({ kind: 'builtin', name: 'brave_search', arguments: { query } });
const wolfram = (query: string): ToolCall => ({ kind: 'builtin', name: 'wolfram_alpha', arguments: { query } });
const code = (text: string): ToolCall => ({ kind: 'code', name: 'code_interpreter', arguments: { code: text } });

export const MICRO_E2E_CASES: readonly MicroE2eCase[] = [
  {
    name: 'population (brave_search)',
    question: 'What is the population of Oslo?',
    call: search('population of Oslo'),
    result: {
      query: 'population of Oslo',
      results: [
        { title: 'Oslo - Wikipedia', url: 'https://en.wikipedia.org/wiki/Oslo', description: 'Oslo is a city in Norway, known for its history, culture and food.' },
        { title: 'Oslo population 2024', url: 'https://worldpopulationreview.com/cities/norway/oslo', description: 'The population of Oslo, Norway is 634,293 according to the latest estimate.', age: '3 days ago' },
      ],
    },
    answerContains: ['634,293'],
  },
  {
    name: 'weather (brave_search)',
    question: 'What is the weather in Paris today?',
    call: search('weather in Paris'),
    result: {
      query: 'weather in Paris',
      results: [{ title: 'Paris weather today', url: 'https://weather.com/weather/today/l/paris', description: 'Currently 18°C and light rain in Paris. Humidity 80%, wind 12 km/h.' }],
    },
    answerContains: ['18°C', 'light rain'],
  },
  {
    // Hamburg occurs nowhere in training (world.ts NEW_CITY_NAMES): its ids were never read or written, so the
    // call and the answer pass only if the model copies an unseen name (the committed artifact does; an
    // artifact without learned rows for ids it never saw fails).
    name: 'weather in a city never seen in training (brave_search)',
    question: 'What is the weather in Hamburg today?',
    call: search('weather in Hamburg'),
    result: {
      query: 'weather in Hamburg',
      results: [{ title: 'Hamburg weather today', url: 'https://weather.com/weather/today/l/hamburg', description: 'Currently 12°C and cloudy in Hamburg. Humidity 70%, wind 20 km/h.' }],
    },
    answerContains: ['Hamburg', '12°C', 'cloudy'],
  },
  {
    name: 'capital (brave_search)',
    question: 'What is the capital of Japan?',
    call: search('capital of Japan'),
    result: {
      query: 'capital of Japan',
      results: [{ title: 'Japan - Wikipedia', url: 'https://en.wikipedia.org/wiki/Japan', description: 'The capital of Japan is Tokyo, which is also its largest city.' }],
    },
    answerContains: ['Tokyo'],
  },
  {
    name: 'winner (brave_search)',
    question: 'Who won the Tour de France in 2019?',
    call: search('winner of the Tour de France 2019'),
    result: {
      query: 'winner of the Tour de France 2019',
      results: [{ title: 'Tour de France 2019 - Wikipedia', url: 'https://en.wikipedia.org/wiki/2019_Tour_de_France', description: 'The Tour de France 2019 was won by Anna Berg.' }],
    },
    answerContains: ['Anna Berg'],
  },
  {
    name: 'arithmetic (wolfram_alpha)',
    question: 'What is 37 * 48?',
    call: wolfram('37 * 48'),
    result: 'Query:\n"37 * 48"\n\nInput:\n37×48\n\nResult:\n1776\n\nWolfram|Alpha website result for "37 * 48":\nhttps://www.wolframalpha.com/input?i=37+*+48',
    answerContains: ['1776'],
  },
  {
    name: 'integral (wolfram_alpha)',
    question: 'Integrate x^3 dx.',
    call: wolfram('integrate x^3 dx'),
    result: 'Query:\n"integrate x^3 dx"\n\nInput interpretation:\nintegral x^3 dx\n\nResult:\nintegral x^3 dx = x^4/4 + constant',
    answerContains: ['x^4/4 + constant'],
  },
  {
    name: 'sum (code_interpreter)',
    question: 'Use Python to add up the numbers from 1 to 100.',
    call: code('print(sum(range(1, 100 + 1)))'),
    result: { stdout: '5050\n' },
    answerContains: ['5050'],
  },
  {
    name: 'sort (code_interpreter)',
    question: 'Sort the list [5, 3, 9, 1] in Python.',
    call: code('print(sorted([5, 3, 9, 1]))'),
    result: { stdout: '[1, 3, 5, 9]\n' },
    answerContains: ['[1, 3, 5, 9]'],
  },
  {
    name: 'search error as data',
    question: 'What is the population of Oslo?',
    call: search('population of Oslo'),
    // What the runtime writes when no key is set (the proxy's 503 through the proxy client and the loop), built by the same code.
    result: errorText(new ToolError(FAILURE_TEXTS.notConfigured('brave_search'), { setup: FAILURE_TEXTS.notConfiguredSetup('brave_search') })),
    answerContains: ['BRAVE_API_KEY is not set'],
  },
  {
    name: 'date from the system block (no tool)',
    question: 'What is today\'s date?',
    call: null,
    result: null,
    answerContains: ['11 August 2026'],
  },
  {
    name: 'small talk (no tool)',
    question: 'Hello!',
    call: null,
    result: null,
    answerContains: [],
  },
];
