/**
 * What the offline demo advertises, one list: the chat page's example questions for the micro model
 * (models/examples.json), the widget demo's suggestions (src/widget/demo.html) and the README show these
 * questions (offline-cases.test.ts checks it), and each is asked unforced, with no key and no network, in
 * Node (src/agent/micro-offline.test.ts) and in Chromium (tests/browser/micro.browser.test.ts).
 */
import { readFileSync } from 'node:fs';
import { DEMO_CORPUS_PATH } from '../../src/cli/node-tools';

export interface OfflineCase {
  name: string;
  question: string;
  /** `local`: the built-ins answered on the device; `widget`: the widget demo's tools (code_interpreter and get_opening_hours). */
  tools: 'local' | 'widget';
  /** The one tool the model must call, or null for a direct answer. */
  tool: string | null;
  /** What the final answer contains. */
  answer: () => string[];
}

/** The demo corpus's figure for a city's population (its "(demo figure)" document, written by setup). */
export function demoPopulation(city: string): string {
  const docs = JSON.parse(readFileSync(DEMO_CORPUS_PATH, 'utf8')) as Array<{ title: string; text: string }>;
  const doc = docs.find((d) => d.title === `${city} population (demo figure)`);
  if (!doc) throw new Error(`the demo corpus has no population of ${city}: run \`npm run setup\``);
  return /is ([\d,]+)/.exec(doc.text)![1]!;
}

export const OFFLINE_CASES: readonly OfflineCase[] = [
  { name: 'capital (local index)', question: 'What is the capital of Japan?', tools: 'local', tool: 'brave_search', answer: () => ['Tokyo'] },
  { name: 'population (local index, a demo figure)', question: 'What is the population of Tokyo?', tools: 'local', tool: 'brave_search', answer: () => [demoPopulation('Tokyo')] },
  { name: 'arithmetic (local math)', question: 'What is 123 * 45?', tools: 'local', tool: 'wolfram_alpha', answer: () => ['5535'] },
  { name: 'arithmetic as people write it (local math)', question: 'How much is 19 x 23?', tools: 'local', tool: 'wolfram_alpha', answer: () => ['437'] },
  { name: 'derivative (local math)', question: 'What is the derivative of x^3?', tools: 'local', tool: 'wolfram_alpha', answer: () => ['3 x^2'] },
  { name: 'Python', question: 'Use Python to add up the numbers from 1 to 100.', tools: 'local', tool: 'code_interpreter', answer: () => ['5050'] },
  { name: 'Python, asked another way', question: 'Use Python to sum the numbers from 1 to 50.', tools: 'local', tool: 'code_interpreter', answer: () => ['1275'] },
  { name: "today's date (no tool)", question: "What is today's date?", tools: 'local', tool: null, answer: () => ['11 August 2026'] },
  { name: 'small talk (no tool)', question: 'Hello!', tools: 'local', tool: null, answer: () => [] },
  { name: "the widget demo's get_opening_hours (a host tool)", question: 'When are you open on Monday?', tools: 'widget', tool: 'get_opening_hours', answer: () => ['07:00', '18:00'] },
];

/** The date the cases are asked on (the date question's answer). */
export const OFFLINE_DATE = '2026-08-11';
