/**
 * The demo corpus the local search index answers from when no search key is set: the micro world's
 * facts as short documents — each country's capital (real facts) and a population for every city and
 * country (demo figures, seeded, labelled as such in each title) — written under public/ at
 * DEMO_CORPUS_PUBLIC_PATH (`public/local-search/corpus.json`), where the page, the widget build and
 * the Node CLI load it. Deterministic: the same bytes on every machine; rewritten only when they change.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ALL_CITIES, ALL_COUNTRIES } from '../micro-llama/world';
import { capitalize, wiki, withCommas } from '../micro-llama/dialogues';
import { slug } from '../micro-llama/tool-results';
import { Rng } from '../micro-llama/rng';
import { DEMO_CORPUS_PUBLIC_PATH, type LocalDocument } from '../../src/tools/local-search';
import { readText, writeAtomic } from './model-dir';

export function demoCorpus(): LocalDocument[] {
  const rng = new Rng(20261201);
  const docs: LocalDocument[] = [];
  for (const c of ALL_COUNTRIES) {
    docs.push({ title: `${capitalize(c.name)} - Wikipedia`, url: wiki(c.name), text: `The capital of ${c.name} is ${c.capital}.` });
  }
  for (const city of ALL_CITIES) {
    const pop = withCommas(rng.logInt(20_000, 15_000_000));
    docs.push({ title: `${city.name} population (demo figure)`, url: `file:demo-corpus/population/${slug(city.name)}`, text: `The population of ${city.name}, ${city.country} is ${pop} according to the latest estimate.` });
  }
  for (const c of ALL_COUNTRIES) {
    const pop = withCommas(rng.logInt(300_000, 150_000_000));
    docs.push({ title: `${capitalize(c.name)} population (demo figure)`, url: `file:demo-corpus/population/${slug(c.name)}`, text: `The population of ${c.name} is ${pop} according to the latest estimate.` });
  }
  return docs;
}

export async function writeDemoCorpus(publicDir: string): Promise<void> {
  const path = join(publicDir, DEMO_CORPUS_PUBLIC_PATH);
  await mkdir(dirname(path), { recursive: true });
  const text = `${JSON.stringify(demoCorpus(), null, 1)}\n`;
  if ((await readText(path)) !== text) await writeAtomic(path, text);
}
