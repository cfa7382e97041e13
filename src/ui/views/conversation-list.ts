/**
 * The saved conversations in the sidebar: New chat, a search over their titles and text, then one row
 * per conversation (newest first; those that match the search while there is one) that
 * opens it, with Rename (inline), Export (a JSON file the CLI's render and replay accept), Markdown
 * (for reading) and Delete (asks first); Import adds the chat of an exported JSON file, or says what is
 * wrong with it. An unreadable record is listed with its error and can still be deleted.
 */
import type { ChatLibrary } from '../chat-library';
import type { ConversationSummary } from '../conversation-store';
import { h, replace } from '../dom';
import type { Question } from './question-dialog';

export class ConversationList {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private readonly problem: HTMLElement;
  private readonly search: HTMLInputElement;
  private readonly importNote: HTMLElement;

  constructor(
    private readonly library: ChatLibrary,
    private readonly ask: (q: Question) => Promise<boolean>,
  ) {
    this.list = h('ul', { class: 'chat-list', 'aria-label': 'Saved conversations' });
    this.problem = h('p', { class: 'hint chat-problem', role: 'status', hidden: true });
    this.search = h('input', { type: 'search', class: 'chat-search', placeholder: 'Search chats', 'aria-label': 'Search chats by title and text' });
    this.search.addEventListener('input', () => void this.refresh());
    this.importNote = h('p', { class: 'hint import-note', role: 'status', hidden: true });
    const file = h('input', { type: 'file', accept: '.json,application/json', class: 'import-file', hidden: true, 'aria-label': 'A chat exported as JSON' });
    file.addEventListener('change', () => {
      const chosen = file.files?.[0];
      file.value = '';
      if (chosen) void this.importFile(chosen);
    });
    this.el = h(
      'section',
      { class: 'panel chats-panel', 'aria-label': 'Conversations' },
      h(
        'div',
        { class: 'panel-head' },
        h('h2', {}, 'Chats'),
        h('button', { type: 'button', class: 'secondary small import', onclick: () => file.click() }, 'Import'),
        h('button', { type: 'button', class: 'secondary small new-chat', onclick: () => void library.newChat() }, 'New chat'),
      ),
      file,
      this.importNote,
      this.search,
      this.problem,
      this.list,
    );
    library.on(() => void this.refresh());
  }

  async refresh(): Promise<void> {
    const query = this.search.value;
    const chats = await this.library.search(query);
    if (query !== this.search.value) return; // a newer search is under way
    this.problem.hidden = this.library.problem === null;
    this.problem.textContent = this.library.problem ?? '';
    const none = query.trim() !== '' ? `No chat matches “${query.trim()}”.` : 'Your conversations are kept in this browser and listed here.';
    replace(this.list, ...(chats.length === 0 ? [h('li', { class: 'hint' }, none)] : chats.map((c) => this.row(c))));
  }

  private row(c: ConversationSummary): HTMLElement {
    const current = c.id === this.library.current;
    const open = h(
      'button',
      { type: 'button', class: 'chat-open', 'aria-current': current ? 'true' : null, disabled: !!c.error, title: c.error ?? c.title, onclick: () => void this.library.open(c.id) },
      h('span', { class: 'chat-title' }, c.title),
      h('span', { class: 'chat-when' }, c.error ? 'could not be read' : when(c.updatedAt)),
    );
    const li = h('li', { class: `chat-item${current ? ' is-current' : ''}`, 'data-id': c.id }, open);
    const actions = h(
      'div',
      { class: 'chat-actions' },
      c.error ? null : h('button', { type: 'button', class: 'secondary small rename', 'aria-label': `Rename “${c.title}”`, onclick: () => this.rename(li, c) }, 'Rename'),
      c.error ? null : h('button', { type: 'button', class: 'secondary small export', 'aria-label': `Export “${c.title}” as JSON`, onclick: () => void this.export(c.id) }, 'Export'),
      c.error ? null : h('button', { type: 'button', class: 'secondary small export-md', 'aria-label': `Export “${c.title}” as Markdown`, onclick: () => void this.exportMarkdown(c.id) }, 'Markdown'),
      h('button', { type: 'button', class: 'danger small delete', 'aria-label': `Delete “${c.title}”`, onclick: () => void this.remove(c) }, 'Delete'),
    );
    li.append(actions);
    return li;
  }

  private rename(li: HTMLElement, c: ConversationSummary): void {
    const input = h('input', { type: 'text', class: 'rename-input', 'aria-label': 'New name', value: c.title, maxlength: 200 });
    let finished = false;
    const done = (save: boolean) => {
      if (finished) return;
      finished = true;
      if (save && input.value.trim() !== '') void this.library.rename(c.id, input.value);
      else void this.refresh();
    };
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') done(true);
      if (e.key === 'Escape') done(false);
    });
    input.addEventListener('blur', () => done(true), { once: true });
    li.replaceChildren(input);
    input.focus();
    input.select();
  }

  private async importFile(file: File): Promise<void> {
    try {
      await this.library.importJson(await file.text());
      this.importNote.hidden = true;
    } catch (e) {
      this.importNote.textContent = `“${file.name}” was not imported: ${e instanceof Error ? e.message : String(e)}.`;
      this.importNote.hidden = false;
    }
  }

  private async export(id: string): Promise<void> {
    const file = await this.library.exportJson(id);
    if (file) this.download(file.name, file.json, 'application/json');
  }

  private async exportMarkdown(id: string): Promise<void> {
    const file = await this.library.exportMarkdown(id);
    if (file) this.download(file.name, file.markdown, 'text/markdown');
  }

  private download(name: string, text: string, type: string): void {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = h('a', { href: url, download: name, hidden: true });
    this.el.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }

  private async remove(c: ConversationSummary): Promise<void> {
    const yes = await this.ask({ title: `Delete “${c.title}”?`, lines: ['It cannot be brought back.'], strong: true, confirmLabel: 'Delete' });
    if (!yes) return;
    await this.library.remove(c.id);
  }
}

/** "14:05" today, else "3 Dec". */
function when(t: number): string {
  const d = new Date(t);
  const today = new Date();
  return d.toDateString() === today.toDateString() ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : d.toLocaleDateString([], { day: 'numeric', month: 'short' });
}
