/**
 * The user's own documents for the local search index: files or a whole folder (picked, or dropped
 * on the fieldset), their .txt and .md files read in the page and split into documents
 * (local-search.ts) — nothing is uploaded. Kept on this device across reloads when the page has storage
 * (document-store.ts), until "Forget my documents"; the status line says how many and whether they are kept.
 */
import { documentsFromText, isTextDocumentName, type LocalDocument } from '../../tools/local-search';
import { h } from '../dom';
import type { AddedDocuments } from '../tool-box';

/** What the view needs of the tool box. */
export interface DocumentShelf {
  addDocuments(documents: LocalDocument[]): Promise<AddedDocuments>;
  restoredDocuments(): Promise<{ total: number; unreadable: number }>;
  forgetDocuments(): Promise<void>;
}

const parts = (n: number) => `${n} document part${n === 1 ? '' : 's'}`;

export class LocalDocumentsView {
  readonly el: HTMLElement;
  private readonly status: HTMLElement;

  constructor(private readonly shelf: DocumentShelf) {
    const files = h('input', { type: 'file', multiple: true, accept: '.txt,.md,.markdown,text/plain,text/markdown', class: 'local-doc-files', 'aria-label': 'Add text or Markdown files' });
    const folder = h('input', { type: 'file', webkitdirectory: true, class: 'local-doc-folder', 'aria-label': 'Add a folder of text or Markdown files' });
    for (const input of [files, folder]) input.addEventListener('change', () => void this.addFiles(Array.from(input.files ?? [])).finally(() => (input.value = '')));
    this.status = h('p', { class: 'hint local-doc-status', role: 'status' }, 'Search answers from the demo corpus on this device when it has no key; add your own .txt or .md files or a folder (read here, never uploaded).');
    const forget = h('button', { type: 'button', class: 'local-doc-forget' }, 'Forget my documents');
    forget.addEventListener('click', () => void this.forget());
    this.el = h(
      'fieldset',
      { class: 'local-documents' },
      h('legend', {}, 'Your documents (local search)'),
      h('label', { class: 'field' }, 'Files ', files),
      h('label', { class: 'field' }, 'Folder ', folder),
      forget,
      this.status,
    );
    this.el.addEventListener('dragover', (e) => e.preventDefault());
    this.el.addEventListener('drop', (e) => {
      e.preventDefault();
      void this.addFiles(Array.from(e.dataTransfer?.files ?? []));
    });
  }

  /** Says what earlier visits left (call once the page is up: it loads the local index). */
  async showRestored(): Promise<void> {
    try {
      const { total, unreadable } = await this.shelf.restoredDocuments();
      if (total === 0 && unreadable === 0) return;
      this.status.textContent = `${parts(total)} of yours kept on this device from earlier visits${unreadable ? ` (${unreadable} stored record${unreadable === 1 ? '' : 's'} could not be read)` : ''}.`;
    } catch (e) {
      this.status.textContent = `The local index is not available: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  private async forget(): Promise<void> {
    try {
      await this.shelf.forgetDocuments();
      this.status.textContent = 'Your documents were removed from this device; the demo corpus stays.';
    } catch (e) {
      this.status.textContent = `Could not remove your documents: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  private async addFiles(list: File[]): Promise<void> {
    const text = list.filter((f) => isTextDocumentName(f.name));
    const skipped = list.length - text.length;
    if (text.length === 0) {
      this.status.textContent = list.length ? `No .txt or .md file among the ${list.length} given; nothing added.` : 'Nothing added.';
      return;
    }
    try {
      const docs = (await Promise.all(text.map(async (f) => documentsFromText(f.webkitRelativePath || f.name, await f.text())))).flat();
      const added = await this.shelf.addDocuments(docs);
      const where = added.kept ? 'kept on this device' : added.why ? `for this page only: ${added.why}` : 'for this page only';
      this.status.textContent = `Added ${text.length} file${text.length === 1 ? '' : 's'}${skipped ? ` (skipped ${skipped} that are not .txt or .md)` : ''}: ${parts(added.total)} of yours in the local index (${where}).`;
    } catch (e) {
      this.status.textContent = `Could not add the files: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
}
