/**
 * Opens one IndexedDB database with one object store (through `idb`), once per page; a failure to open
 * (private mode, a denied quota) rejects each call with an Error saying so, and the next call tries again.
 */
import { openDB, type IDBPDatabase } from 'idb';

export function lazyDatabase(name: string, store: string, keyPath: string): () => Promise<IDBPDatabase> {
  let db: Promise<IDBPDatabase> | null = null;
  return () =>
    (db ??= openDB(name, 1, {
      upgrade(database) {
        database.createObjectStore(store, { keyPath });
      },
    }).catch((e: unknown) => {
      db = null;
      throw new Error(`this browser would not open its storage (IndexedDB): ${e instanceof Error ? e.message : String(e)}`);
    }));
}
