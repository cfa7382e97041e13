import { describe, expect, it } from 'vitest';
import { ALL_CITIES, ALL_COUNTRIES } from '../micro-llama/world';
import { LocalSearchIndex } from '../../src/tools/local-search';
import { demoCorpus } from './demo-corpus';

describe('the demo corpus of the local search index', () => {
  it('is the same on every run, holds every capital and a labelled demo population for every place', () => {
    const docs = demoCorpus();
    expect(JSON.stringify(demoCorpus())).toBe(JSON.stringify(docs));
    for (const c of ALL_COUNTRIES) expect(docs.some((d) => d.text === `The capital of ${c.name} is ${c.capital}.`), c.name).toBe(true);
    const populations = docs.filter((d) => d.title.endsWith('population (demo figure)'));
    expect(new Set(populations.map((d) => d.url)).size).toBe(new Set([...ALL_CITIES.map((c) => c.name), ...ALL_COUNTRIES.map((c) => c.name)]).size);
  });

  it("answers the demo's questions with the document that holds the answer first", () => {
    const index = new LocalSearchIndex(demoCorpus());
    expect(index.search('capital of Japan').results[0]!.description).toBe('The capital of Japan is Tokyo.');
    expect(index.search('population of Oslo').results[0]!.title).toBe('Oslo population (demo figure)');
  });
});
