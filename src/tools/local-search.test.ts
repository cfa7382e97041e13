import { describe, expect, it } from 'vitest';
import { documentsFromText, LocalSearchIndex } from './local-search';

const docs = [
  { title: 'Japan - Wikipedia', url: 'https://en.wikipedia.org/wiki/Japan', text: 'The capital of Japan is Tokyo.' },
  { title: 'Japan population (demo figure)', url: 'file:demo/japan', text: 'The population of Japan is 84,021,726.' },
  { title: 'Norway - Wikipedia', url: 'https://en.wikipedia.org/wiki/Norway', text: 'The capital of Norway is Oslo.' },
];

describe('the local search index (brave_search without Brave)', () => {
  it("answers in brave_search's shape, says it is the local index, and keeps only the relevant hits", () => {
    expect(new LocalSearchIndex(docs).search('capital of Japan')).toEqual({
      query: 'capital of Japan',
      source: 'local index',
      results: [{ title: 'Japan - Wikipedia', url: 'https://en.wikipedia.org/wiki/Japan', description: 'The capital of Japan is Tokyo.' }],
    });
  });

  it('ranks by relevance and caps the count; a query that matches nothing gives no results', () => {
    const index = new LocalSearchIndex(docs);
    expect(index.search('Japan').results.map((r) => r.url)).toEqual(['https://en.wikipedia.org/wiki/Japan', 'file:demo/japan']);
    expect(index.search('Japan', 1).results).toHaveLength(1);
    expect(index.search('zebra crossing').results).toEqual([]);
  });

  it('a document added again under the same address replaces the old one', () => {
    const index = new LocalSearchIndex(docs);
    index.add([{ title: 'Norway - Wikipedia', url: 'https://en.wikipedia.org/wiki/Norway', text: 'The capital of Norway is Oslo, on a fjord.' }]);
    expect(index.size).toBe(3);
    expect(index.search('capital Norway').results[0]!.description).toBe('The capital of Norway is Oslo, on a fjord.');
  });

  it('a long document is cut at a word boundary in its description', () => {
    const index = new LocalSearchIndex([{ title: 'Long', url: 'file:long', text: `harbour ${'word '.repeat(200)}` }]);
    const d = index.search('harbour').results[0]!.description;
    expect(d.length).toBeLessThanOrEqual(301);
    expect(d.endsWith('word…')).toBe(true);
  });

  it("a user's text file becomes documents: titled by its heading, split in parts of about 1,000 characters", () => {
    const text = `# Opening hours\n\n${'The shop opens at nine. '.repeat(30)}\n\n${'It closes at five. '.repeat(40)}`;
    const parts = documentsFromText('shop.md', text);
    expect(parts.map((p) => [p.title, p.url])).toEqual([
      ['Opening hours', 'file:shop.md#1'],
      ['Opening hours', 'file:shop.md#2'],
    ]);
    expect(new LocalSearchIndex(parts).search('what time it closes').results[0]!.url).toBe('file:shop.md#2');
    expect(documentsFromText('note.txt', 'one line')).toEqual([{ title: 'note.txt', url: 'file:note.txt', text: 'one line' }]);
  });
});
