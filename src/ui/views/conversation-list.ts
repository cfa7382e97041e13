/**
 * The saved conversations in the sidebar: New chat, then one row per conversation (newest first) that
 * opens it, with Rename (inline), JSON export (the file the CLI's render and replay accept, and Import
 * reads back), Markdown export (for people) and Delete (asks first). Search filters the list by title
 * and message text. An unreadable record is listed with its error and can still be deleted.
 */
import type { ChatLibrary } from '../chat-library';
import type { ConversationSummary } from '../conversation-store';
import { h, replace } from '../dom';
import type { Question } from './question-dialog';

export class ConversationList {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private readonly problem: HTMLElement;
  private readonly searchInput: HTMLInputElement;
  private readonly importInput: HTMLInputElement;
  private readonly importStatus: HTMLElement;

  constructor(
    private readonly library: ChatLibrary,
    private readonly ask: (q: Question) => Promise<boolean>,
  ) {
    this.list = h('ul', { class: 'chat-list', 'aria-label': 'Saved conversations' });
    this.problem = h('p', { class: 'hint chat-problem', role: 'status', hidden: true });
    this.searchInput = h('input', { type: 'search', class: 'chat-search', placeholder: 'Search chats', 'aria-label': 'Search chats (titles and messages)' });
    this.searchInput.addEventListener('input', () => void this.refresh());
    this.importInput = h('input', { type: 'file', accept: '.json,application/json', class: 'chat-import-file', hidden: true });
    this.importInput.addEventListener('change', () => void this.importFile());
    this.importStatus = h('p', { class: 'hint chat-import-status', role: 'status', hidden: true });
    this.el = h(
      'section',
      { class: 'panel chats-panel', 'aria-label': 'Conversations' },
      h(
        'div',
        { class: 'panel-head' },
        h('h2', {}, 'Chats'),
        h(
          'div',
          { class: 'row' },
          h('button', { type: 'button', class: 'secondary small chat-import', title: 'Import a chat exported as JSON', onclick: () => this.importInput.click() }, 'Import'),
          h('button', { type: 'button', class: 'secondary small new-chat', onclick: () => void library.newChat() }, 'New chat'),
        ),
      ),
      this.searchInput,
      this.importInput,
      this.importStatus,
      this.problem,
      this.list,
    );
    library.on(() => void this.refresh());
  }

  async refresh(): Promise<void> {
    const query = this.searchInput.value;
    const [chats, hits] = await Promise.all([this.library.list(), this.library.search(query)]);
    if (query !== this.searchInput.value) return; // a later keystroke refreshes again
    this.problem.hidden = this.library.problem === null;
    this.problem.textContent = this.library.problem ?? '';
    const shown = chats.filter((c) => hits.has(c.id));
    const empty = chats.length === 0 ? 'Your conversations are kept in this browser and listed here.' : `No chat mentions “${query.trim()}”.`;
    replace(this.list, ...(shown.length === 0 ? [h('li', { class: 'hint' }, empty)] : shown.map((c) => this.row(c))));
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
      c.error ? null : h('button', { type: 'button', class: 'secondary small export', 'aria-label': `Export “${c.title}” as JSON`, onclick: () => void this.export(c.id) }, 'JSON'),
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

  private async export(id: string): Promise<void> {
    const file = await this.library.exportJson(id);
    if (file) this.download(file.name, file.json, 'application/json');
  }

  private async exportMarkdown(id: string): Promise<void> {
    const file = await this.library.exportMarkdown(id);
    if (file) this.download(file.name, file.markdown, 'text/markdown');
  }

  private async importFile(): Promise<void> {
    const file = this.importInput.files?.[0];
    this.importInput.value = '';
    if (!file) return;
    this.importStatus.hidden = false;
    try {
      await this.library.importJson(await file.text());
      this.importStatus.textContent = `Imported “${file.name}”.`;
      this.importStatus.dataset.ok = 'true';
    } catch (e) {
      this.importStatus.textContent = `“${file.name}” was not imported: ${e instanceof Error ? e.message : String(e)}`;
      this.importStatus.dataset.ok = 'false';
    }
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
