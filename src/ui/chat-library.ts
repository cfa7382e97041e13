/**
 * The saved conversations of the chat page, no DOM: the session's conversation is written to the
 * store after every kept turn, branch switch and "always allow", listed newest first, reopened (also
 * on reload: the last one open), searched, renamed, deleted, exported as the CLI's render input or as
 * Markdown, and imported from such an export.
 *
 * Invariants: an empty conversation is never stored (a record is created by its first kept turn);
 * opening or switching never changes a record's updatedAt (only a new turn does), so the list's order
 * is the order of activity; writes are serialized, in event order; a store that fails (no IndexedDB)
 * leaves the chat working and says so through `problem`.
 */
import type { ChatSession, SessionEvent } from './chat-session';
import { conversationMatches } from './chat-search';
import { namedTitle, titleOf } from './chat-title';
import { conversationMarkdown } from './conversation-markdown';
import { importConversation } from './import-conversation';
import type { ConversationStore, ConversationSummary } from './conversation-store';
import { exportConversation, exportFileName, STORED_VERSION, type StoredConversation } from './stored-conversation';

export interface ChatLibraryOptions {
  store: ConversationStore;
  session: ChatSession;
  /** The loaded model's id, recorded with the conversation. */
  model: () => string | null;
  /** Remembers the conversation open across reloads. */
  lastOpen: { get(): string | null; set(id: string | null): void };
}

export class ChatLibrary {
  private currentId: string | null = null;
  private record: StoredConversation | null = null;
  private writes: Promise<void> = Promise.resolve();
  /** open() is restoring: its `switched` is not a change to store. */
  private opening = false;
  private readonly listeners = new Set<() => void>();
  /** Why the last store operation failed, or null. */
  problem: string | null = null;

  constructor(private readonly o: ChatLibraryOptions) {
    o.session.on((e) => this.onSession(e));
  }

  /** The id of the conversation shown (null: a new one, not stored yet). */
  get current(): string | null {
    return this.currentId;
  }

  on(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async list(): Promise<ConversationSummary[]> {
    return this.guard(() => this.o.store.list(), []);
  }

  /** The conversations whose title or text holds every word of `query` (chat-search.ts), newest first; all for an empty query. */
  async search(query: string): Promise<ConversationSummary[]> {
    const all = await this.list();
    if (query.trim() === '') return all;
    const matches = await Promise.all(
      all.map(async (c) => {
        if (c.error) return false;
        const record = await this.o.store.get(c.id).catch(() => null);
        return record !== null && conversationMatches(record, query);
      }),
    );
    return all.filter((_, i) => matches[i]);
  }

  /** Shows stored conversation `id`; resolves false (and sets `problem`) when it cannot be read. */
  async open(id: string): Promise<boolean> {
    if (this.o.session.busy) return false;
    let record: StoredConversation | null;
    try {
      record = await this.o.store.get(id);
    } catch (e) {
      this.problem = `That conversation could not be read: ${message(e)}`;
      this.changed();
      return false;
    }
    if (!record) return false;
    this.currentId = id;
    this.record = record;
    this.o.lastOpen.set(id);
    this.opening = true;
    try {
      this.o.session.restore({ tree: record.tree, allowedTools: record.allowedTools, renderOptions: record.renderOptions });
    } finally {
      this.opening = false;
    }
    this.problem = null;
    this.changed();
    return true;
  }

  /** Reopens the conversation that was open before the page was reloaded, if it is still there. */
  async reopenLast(): Promise<boolean> {
    const id = this.o.lastOpen.get();
    return id ? this.open(id) : false;
  }

  /** Starts a new, empty conversation (stored with its first kept turn); a run going on ends first, kept in the chat it was in. */
  newChat(): Promise<void> {
    return this.o.session.clear();
  }

  async rename(id: string, title: string): Promise<void> {
    const t = namedTitle(title);
    if (t === null) return;
    await this.update(id, (r) => ({ ...r, title: t, named: true }));
  }

  async remove(id: string): Promise<void> {
    // A run in the conversation being deleted ends (and is stored) first, so nothing writes it back.
    if (id === this.currentId) await this.o.session.clear();
    await this.enqueue(() => this.o.store.delete(id));
    this.changed();
  }

  /** The export of conversation `id`: a file name and the JSON text. */
  async exportJson(id: string): Promise<{ name: string; json: string } | null> {
    await this.writes;
    const record = id === this.currentId && this.record ? this.record : await this.guard(() => this.o.store.get(id), null);
    return record ? { name: exportFileName(record), json: `${JSON.stringify(exportConversation(record), null, 2)}\n` } : null;
  }

  /**
   * Adds the conversation of an exported file (import-conversation.ts) and opens it. Throws an Error
   * saying what is wrong with a file that is not an export or is damaged; nothing is stored then.
   */
  async importJson(text: string): Promise<string> {
    if (this.o.session.busy) throw new Error('an answer is being written: import once it has finished');
    const record = importConversation(text, newId(), Date.now());
    await this.enqueue(() => this.o.store.put(record));
    if (!(await this.open(record.id))) throw new Error(this.problem ?? 'the imported conversation could not be opened');
    return record.id;
  }

  /** The shown branch of conversation `id` as Markdown (conversation-markdown.ts), with a file name. */
  async exportMarkdown(id: string): Promise<{ name: string; markdown: string } | null> {
    await this.writes;
    const record = id === this.currentId && this.record ? this.record : await this.guard(() => this.o.store.get(id), null);
    return record ? { name: exportFileName(record).replace(/\.json$/, '.md'), markdown: conversationMarkdown(record) } : null;
  }

  private onSession(e: SessionEvent): void {
    if (e.type === 'cleared') {
      this.currentId = null;
      this.record = null;
      this.o.lastOpen.set(null);
      this.changed();
    } else if (e.type === 'turn-end' && e.kept) this.save(true);
    else if (e.type === 'switched' && this.record && !this.opening) this.save(false);
    else if (e.type === 'allowed' && this.record) this.save(false);
  }

  private save(activity: boolean): void {
    const snapshot = this.o.session.snapshot();
    const now = Date.now();
    const first = snapshot.tree.nodes[snapshot.tree.children['']?.[0] ?? ''];
    const base: StoredConversation = this.record ?? {
      version: STORED_VERSION,
      id: newId(),
      title: titleOf(first?.userText ?? 'New chat'),
      named: false,
      createdAt: now,
      updatedAt: now,
      modelId: null,
      tree: snapshot.tree,
      allowedTools: [],
      renderOptions: {},
    };
    const record: StoredConversation = {
      ...base,
      ...snapshot,
      updatedAt: activity ? now : base.updatedAt,
      modelId: activity ? this.o.model() : base.modelId,
    };
    this.record = record;
    if (this.currentId !== record.id) {
      this.currentId = record.id;
      this.o.lastOpen.set(record.id);
    }
    void this.enqueue(() => this.o.store.put(record)).then(() => this.changed());
  }

  private async update(id: string, edit: (r: StoredConversation) => StoredConversation): Promise<void> {
    await this.enqueue(async () => {
      const stored = id === this.currentId && this.record ? this.record : await this.o.store.get(id);
      if (!stored) return;
      const next = edit(stored);
      if (id === this.currentId) this.record = next;
      await this.o.store.put(next);
    });
    this.changed();
  }

  /** Runs store writes one after another; a failure is reported, not thrown. */
  private enqueue(write: () => Promise<void>): Promise<void> {
    this.writes = this.writes.then(() => this.guard(write, undefined));
    return this.writes;
  }

  private async guard<T>(op: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await op();
    } catch (e) {
      this.problem = `Conversations are not being saved: ${message(e)}`;
      this.changed();
      return fallback;
    }
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function newId(): string {
  return `c-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
