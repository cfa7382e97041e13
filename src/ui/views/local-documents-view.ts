/**
 * The user's own documents for the local search index: files or a whole folder (picked, or dropped
 * on the fieldset), their .txt and .md files read in the page and split into documents
 * (local-search.ts) — nothing is uploaded. Kept for the page's life; the status line says how many.
 */
import { documentsFromText, isTextDocumentName, type LocalDocument } from '../../tools/local-search';
import { h } from '../dom';

export class LocalDocumentsView {
  readonly el: HTMLElement;
  private readonly status: HTMLElement;

  constructor(private readonly add: (documents: LocalDocument[]) => Promise<number>) {
    const files = h('input', { type: 'file', multiple: true, accept: '.txt,.md,.markdown,text/plain,text/markdown', class: 'local-doc-files', 'aria-label': 'Add text or Markdown files' });
    const folder = h('input', { type: 'file', webkitdirectory: true, class: 'local-doc-folder', 'aria-label': 'Add a folder of text or Markdown files' });
    for (const input of [files, folder]) input.addEventListener('change', () => void this.addFiles(Array.from(input.files ?? [])).finally(() => (input.value = '')));
    this.status = h('p', { class: 'hint local-doc-status', role: 'status' }, 'Search answers from the demo corpus on this device when it has no key; add your own .txt or .md files or a folder (they stay in this page).');
    this.el = h(
      'fieldset',
      { class: 'local-documents' },
      h('legend', {}, 'Your documents (local search)'),
      h('label', { class: 'field' }, 'Files ', files),
      h('label', { class: 'field' }, 'Folder ', folder),
      this.status,
    );
    this.el.addEventListener('dragover', (e) => e.preventDefault());
    this.el.addEventListener('drop', (e) => {
      e.preventDefault();
      void this.addFiles(Array.from(e.dataTransfer?.files ?? []));
    });
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
      const total = await this.add(docs);
      this.status.textContent = `Added ${text.length} file${text.length === 1 ? '' : 's'}${skipped ? ` (skipped ${skipped} that are not .txt or .md)` : ''}: ${total} document part${total === 1 ? '' : 's'} of yours in the local index.`;
    } catch (e) {
      this.status.textContent = `Could not add the files: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
}
