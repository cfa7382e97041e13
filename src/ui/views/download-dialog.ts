/**
 * The question before a big download (download-plan.ts says when and what): a modal `<dialog>` with
 * the size, the hosts, the time estimate and, when the page said the model will not run well here, a
 * warning with Cancel focused. Escape cancels.
 *
 * Invariant: each ask() settles exactly once; an earlier question still open is cancelled.
 */
import type { DownloadQuestion } from '../download-plan';
import { h, replace, uid } from '../dom';

export class DownloadDialog {
  readonly el: HTMLDialogElement;
  private readonly title: HTMLElement;
  private readonly body: HTMLElement;
  private readonly confirmButton: HTMLButtonElement;
  private readonly cancelButton: HTMLButtonElement;
  private settle: ((yes: boolean) => void) | null = null;

  constructor() {
    const titleId = uid('download-title');
    this.title = h('h2', { id: titleId });
    this.body = h('div', { class: 'download-body' });
    this.cancelButton = h('button', { type: 'button', class: 'secondary cancel', onclick: () => this.answer(false) }, 'Cancel');
    this.confirmButton = h('button', { type: 'button', class: 'primary confirm', onclick: () => this.answer(true) }, 'Download');
    this.el = h('dialog', { class: 'download-dialog', 'aria-labelledby': titleId }, this.title, this.body, h('div', { class: 'confirm-actions' }, this.cancelButton, this.confirmButton));
    this.el.addEventListener('cancel', (e) => {
      e.preventDefault();
      this.answer(false);
    });
  }

  ask(q: DownloadQuestion): Promise<boolean> {
    this.answer(false);
    this.el.dataset.strong = String(q.strong);
    this.title.textContent = q.title;
    replace(this.body, ...q.lines.map((line, i) => h('p', { class: q.strong && i === 0 ? 'download-warning' : null }, line)));
    this.confirmButton.textContent = q.confirmLabel;
    this.confirmButton.className = q.strong ? 'danger confirm' : 'primary confirm';
    return new Promise<boolean>((resolve) => {
      this.settle = resolve;
      if (!this.el.open) this.el.showModal();
      (q.strong ? this.cancelButton : this.confirmButton).focus();
    });
  }

  private answer(yes: boolean): void {
    const settle = this.settle;
    this.settle = null;
    if (this.el.open) this.el.close();
    settle?.(yes);
  }
}
