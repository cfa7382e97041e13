/**
 * The question before a tool that reaches outside runs: allow once, always allow (this tool, this
 * session) or deny. A modal `<dialog>`; Escape (cancel) denies; the run's signal withdraws it.
 *
 * Invariant: at most one question is open; each ask() settles exactly once.
 */
import type { ToolCall } from '../../format/types';
import type { ConfirmAnswer } from '../chat-session';
import { h, replace, uid } from '../dom';
import type { ToolDestination } from '../../tools/tool';
import { callDisplay } from '../tool-display';

/** Where the call's data goes, in the user's words. */
export function destinationText(where: ToolDestination | undefined): string {
  if (!where) return 'The host page’s tool will run with these arguments.';
  if (where.onDevice) return 'Answered on this device — nothing is sent.';
  return where.host ? `The query is sent to ${where.service} (${where.host}) through the tool proxy.` : `The query is sent to ${where.service} through the tool proxy.`;
}

export class ConfirmDialog {
  readonly el: HTMLDialogElement;
  private readonly body: HTMLElement;
  private readonly alwaysButton: HTMLButtonElement;
  private settle: ((a: ConfirmAnswer) => void) | null = null;

  constructor() {
    this.body = h('div', { class: 'confirm-body' });
    const button = (answer: ConfirmAnswer, text: string, cls: string) =>
      h('button', { type: 'button', class: cls, 'data-answer': answer, onclick: () => this.answer(answer) }, text);
    this.alwaysButton = button('always', 'Always allow', 'secondary');
    const title = uid('confirm-title');
    this.el = h(
      'dialog',
      { class: 'confirm-dialog', 'aria-labelledby': title },
      h('h2', { id: title }, 'Run this tool?'),
      this.body,
      h('div', { class: 'confirm-actions' }, button('deny', 'Deny', 'secondary'), this.alwaysButton, button('once', 'Allow once', 'primary')),
    );
    this.el.addEventListener('cancel', (e) => {
      e.preventDefault();
      this.answer('deny');
    });
  }

  ask(call: ToolCall, signal: AbortSignal, where?: ToolDestination): Promise<ConfirmAnswer> {
    this.answer('deny'); // an earlier question still open is denied
    if (signal.aborted) return Promise.resolve('deny');
    const d = callDisplay(call);
    replace(
      this.body,
      h('p', {}, 'The model wants to run ', h('strong', {}, d.name), '.'),
      h('pre', { class: 'confirm-call' }, d.body),
      h('p', { class: 'hint destination' }, destinationText(where)),
    );
    this.alwaysButton.textContent = `Always allow ${d.name}`;
    return new Promise<ConfirmAnswer>((resolve) => {
      const onAbort = () => this.answer('deny');
      this.settle = (a) => {
        signal.removeEventListener('abort', onAbort);
        resolve(a);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      if (!this.el.open) this.el.showModal();
      this.el.querySelector<HTMLButtonElement>('[data-answer="once"]')?.focus();
    });
  }

  private answer(a: ConfirmAnswer): void {
    const settle = this.settle;
    this.settle = null;
    if (this.el.open) this.el.close();
    settle?.(a);
  }
}
