/**
 * `brave_search` without Brave: a full-text index (MiniSearch) over documents on this device — the
 * bundled demo corpus and whatever the user adds — answering in the shape brave_search gives the model,
 * `{"query", "source": "local index", "results": [{title, url, description}]}`.
 *
 * Invariants: a result's description is its document's text, whitespace collapsed, cut to
 * DESCRIPTION_CHARS at a word boundary; only hits scoring at least RELEVANT_SHARE of the best are
 * results; documents with the same url replace each other (adding a file
 * again updates it); results are ranked by MiniSearch's BM25 score, ties in the order documents were
 * added; a query that matches nothing gives an empty result list, never an error.
 */
import MiniSearch from 'minisearch';
import { clampResultCount, type SearchResults } from './search-results';

export const LOCAL_INDEX_SOURCE = 'local index';

/** The bundled demo corpus (written by `npm run setup`), as a path under public/: the page, the widget
 * and the Node CLI load it from there — vite serves public/ at the site root and copies it into a build. */
export const DEMO_CORPUS_PUBLIC_PATH = 'local-search/corpus.json';

export interface LocalDocument {
  title: string;
  /** Where the document lives: a web address, or `file:` + the name it was added under. */
  url: string;
  text: string;
}

const DESCRIPTION_CHARS = 300;

/** A hit is a result only when it scores at least this share of the best hit: a document that shares one
 * word of the query with the answer ("Japan") is noise beside the one that holds them all. */
const RELEVANT_SHARE = 0.6;

/** Words that say what kind of question it is, not what it is about. */
const STOP_WORDS = new Set(['a', 'an', 'and', 'are', 'as', 'at', 'by', 'for', 'from', 'how', 'in', 'is', 'it', 'of', 'on', 'or', 'the', 'to', 'was', 'what', 'when', 'where', 'which', 'who', 'with']);

interface Indexed extends LocalDocument {
  id: string;
  order: number;
}

export class LocalSearchIndex {
  private readonly index = new MiniSearch<Indexed>({
    fields: ['title', 'text'],
    storeFields: ['title', 'url', 'text', 'order'],
    processTerm: (term) => {
      const t = term.toLowerCase();
      return STOP_WORDS.has(t) ? null : t;
    },
    searchOptions: { boost: { title: 2 }, fuzzy: 0.15, prefix: (term) => term.length > 3, combineWith: 'OR' },
  });
  private added = 0;

  constructor(documents: readonly LocalDocument[] = []) {
    this.add(documents);
  }

  get size(): number {
    return this.index.documentCount;
  }

  add(documents: readonly LocalDocument[]): void {
    for (const d of documents) {
      if (this.index.has(d.url)) this.index.discard(d.url);
      this.index.add({ id: d.url, title: d.title, url: d.url, text: d.text, order: this.added++ });
    }
  }

  search(query: string, maxResults?: number): SearchResults {
    const n = clampResultCount(maxResults);
    const hits = this.index.search(query).sort((a, b) => b.score - a.score || (a.order as number) - (b.order as number));
    const best = hits[0]?.score ?? 0;
    return {
      query,
      source: LOCAL_INDEX_SOURCE,
      results: hits.filter((h) => h.score >= best * RELEVANT_SHARE).slice(0, n).map((h) => ({ title: h.title as string, url: h.url as string, description: describe(h.text as string) })),
    };
  }
}

function describe(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= DESCRIPTION_CHARS) return flat;
  const cut = flat.slice(0, DESCRIPTION_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${space > DESCRIPTION_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}

/** The files the local index reads: plain text and Markdown, by name. */
export function isTextDocumentName(name: string): boolean {
  return /\.(txt|md|markdown)$/i.test(name);
}

/**
 * A text file as documents: one per paragraph group of at most ~1,000 characters, titled with the
 * file's first Markdown heading (else its name), addressed `file:<name>#<part>`.
 */
export function documentsFromText(name: string, text: string): LocalDocument[] {
  const heading = /^#{1,6}\s+(.+)$/m.exec(text)?.[1]?.trim();
  const title = heading ?? name;
  const parts: string[] = [];
  let current = '';
  for (const paragraph of text.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean)) {
    if (current && current.length + paragraph.length > 1000) {
      parts.push(current);
      current = '';
    }
    current = current ? `${current}\n\n${paragraph}` : paragraph;
  }
  if (current) parts.push(current);
  return parts.map((part, i) => ({ title, url: parts.length === 1 ? `file:${name}` : `file:${name}#${i + 1}`, text: part }));
}
