/**
 * A yes/no question as a modal `<dialog>` in the page: before a big download (download-plan.ts says
 * when and what) and before deleting something that cannot be brought back. A strong question (the
 * model will not run well here; a deletion) is drawn as a warning with Cancel focused. Escape cancels.
 *
 * The page's own dialog, not `window.confirm()`: a native dialog blocks the main thread, so tokens
 * streaming from the worker would stop rendering while it is open, and sandboxed embedders may
 * suppress it altogether (confirm() then returns false and the action silently does nothing).
 *
 * Invariant: each ask() settles exactly once; an earlier question still open is cancelled.
 */
import { h, replace, uid } from '../dom';

export interface Question {
  title: string;
  lines: string[];
  /** Warn and focus Cancel: the action is risky or cannot be undone. */
  strong: boolean;
  confirmLabel: string;
}

export class QuestionDialog {
  readonly el: HTMLDialogElement;
  private readonly title: HTMLElement;
  private readonly body: HTMLElement;
  private readonly confirmButton: HTMLButtonElement;
  private readonly cancelButton: HTMLButtonElement;
  private settle: ((yes: boolean) => void) | null = null;

  /** `kind` names the dialog's class (`download-dialog`, `delete-dialog`) for styles and tests. */
  constructor(kind: string) {
    const titleId = uid(kind);
    this.title = h('h2', { id: titleId });
    this.body = h('div', { class: 'question-body' });
    this.cancelButton = h('button', { type: 'button', class: 'secondary cancel', onclick: () => this.answer(false) }, 'Cancel');
    this.confirmButton = h('button', { type: 'button', class: 'primary confirm', onclick: () => this.answer(true) }, 'OK');
    this.el = h('dialog', { class: `question-dialog ${kind}`, 'aria-labelledby': titleId }, this.title, this.body, h('div', { class: 'confirm-actions' }, this.cancelButton, this.confirmButton));
    this.el.addEventListener('cancel', (e) => {
      e.preventDefault();
      this.answer(false);
    });
  }

  ask(q: Question): Promise<boolean> {
    this.answer(false);
    this.el.dataset.strong = String(q.strong);
    this.title.textContent = q.title;
    replace(this.body, ...q.lines.map((line, i) => h('p', { class: q.strong && i === 0 ? 'question-warning' : null }, line)));
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
