/**
 * Where conversations are kept: IndexedDB (through `idb`) on the chat page, memory in the widget and
 * in tests. Records are checked when read (stored-conversation.ts): a damaged one is listed with its
 * error and can still be deleted; nothing is dropped silently.
 *
 * Invariants: `list` is newest first (by updatedAt); `put` replaces the record of the same id; a
 * failure to open IndexedDB (private mode, a denied quota) rejects each call with an Error saying so,
 * and the page keeps working without persistence.
 */
import { parseStoredConversation, type StoredConversation } from './stored-conversation';
import { lazyDatabase } from './idb-database';

export interface ConversationSummary {
  id: string;
  title: string;
  updatedAt: number;
  /** Why the record could not be read; absent when it could. */
  error?: string;
}

export interface ConversationStore {
  list(): Promise<ConversationSummary[]>;
  /** The record, or null when there is none; throws when it exists but cannot be read. */
  get(id: string): Promise<StoredConversation | null>;
  put(conversation: StoredConversation): Promise<void>;
  delete(id: string): Promise<void>;
}

const STORE = 'conversations';

function summarize(value: unknown): ConversationSummary {
  try {
    const c = parseStoredConversation(value);
    return { id: c.id, title: c.title, updatedAt: c.updatedAt };
  } catch (e) {
    const v = (typeof value === 'object' && value !== null ? value : {}) as { id?: unknown; updatedAt?: unknown };
    return { id: String(v.id), title: 'Unreadable conversation', updatedAt: typeof v.updatedAt === 'number' ? v.updatedAt : 0, error: e instanceof Error ? e.message : String(e) };
  }
}

const newestFirst = (a: ConversationSummary, b: ConversationSummary) => b.updatedAt - a.updatedAt;

export function indexedDbConversationStore(name = 'llama-agent'): ConversationStore {
  const open = lazyDatabase(name, STORE, 'id');
  return {
    async list() {
      return ((await (await open()).getAll(STORE)) as unknown[]).map(summarize).sort(newestFirst);
    },
    async get(id) {
      const value: unknown = await (await open()).get(STORE, id);
      return value === undefined ? null : parseStoredConversation(value);
    },
    async put(conversation) {
      await (await open()).put(STORE, structuredClone(conversation));
    },
    async delete(id) {
      await (await open()).delete(STORE, id);
    },
  };
}

/** Records in memory, cloned in and out as IndexedDB does. */
export function memoryConversationStore(): ConversationStore {
  const records = new Map<string, unknown>();
  return {
    list: async () => [...records.values()].map(summarize).sort(newestFirst),
    get: async (id) => (records.has(id) ? parseStoredConversation(structuredClone(records.get(id))) : null),
    put: async (c) => void records.set(c.id, structuredClone(c)),
    delete: async (id) => void records.delete(id),
  };
}
