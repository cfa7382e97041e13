/**
 * Where the user's own documents for the local search index are kept across reloads: IndexedDB on the
 * chat page (its own database, beside the conversations'), memory in tests. The widget keeps none: a
 * host page passes its documents on each load, and a widget must not store files in its host's origin.
 *
 * Invariants: a document is keyed by its url (adding a file again replaces it, as in the index); a record
 * that is not {title, url, text} strings is counted as unreadable, never returned; a failure to open
 * IndexedDB rejects with an Error saying so (the documents then live for the page's life only).
 */
import type { LocalDocument } from '../tools/local-search';
import { lazyDatabase } from './idb-database';

export interface StoredDocuments {
  documents: LocalDocument[];
  /** Records that could not be read (damaged or from another version). */
  unreadable: number;
}

export interface DocumentStore {
  all(): Promise<StoredDocuments>;
  put(documents: readonly LocalDocument[]): Promise<void>;
  clear(): Promise<void>;
}

const STORE = 'documents';

function read(records: readonly unknown[]): StoredDocuments {
  const documents: LocalDocument[] = [];
  for (const r of records) {
    const d = r as Partial<Record<keyof LocalDocument, unknown>> | null;
    if (d && typeof d.title === 'string' && typeof d.url === 'string' && typeof d.text === 'string') documents.push({ title: d.title, url: d.url, text: d.text });
  }
  return { documents, unreadable: records.length - documents.length };
}

const copy = (d: LocalDocument): LocalDocument => ({ title: d.title, url: d.url, text: d.text });

export function indexedDbDocumentStore(name = 'llama-agent-documents'): DocumentStore {
  const open = lazyDatabase(name, STORE, 'url');
  return {
    async all() {
      return read((await (await open()).getAll(STORE)) as unknown[]);
    },
    async put(documents) {
      const tx = (await open()).transaction(STORE, 'readwrite');
      await Promise.all([...documents.map((d) => tx.store.put(copy(d))), tx.done]);
    },
    async clear() {
      await (await open()).clear(STORE);
    },
  };
}

/** Documents in memory, keyed by url as IndexedDB keys them. */
export function memoryDocumentStore(): DocumentStore {
  const records = new Map<string, unknown>();
  return {
    all: async () => read([...records.values()]),
    put: async (documents) => void documents.forEach((d) => records.set(d.url, copy(d))),
    clear: async () => records.clear(),
  };
}
