/**
 * The message box: Enter sends, Shift+Enter is a newline, Escape stops a running answer (also
 * from anywhere in the chat). Send and Stop swap while a run is going; focus stays in the box.
 */
import { h } from '../dom';

export interface ComposerOptions {
  onSend: (text: string) => void;
  onStop: () => void;
  placeholder?: string;
}

export class Composer {
  readonly el: HTMLFormElement;
  readonly input: HTMLTextAreaElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly stopButton: HTMLButtonElement;
  private busy = false;

  constructor(private readonly o: ComposerOptions) {
    this.input = h('textarea', {
      class: 'composer-input',
      rows: 1,
      placeholder: o.placeholder ?? 'Message the model (Enter to send, Shift+Enter for a new line)',
      'aria-label': 'Message',
      enterkeyhint: 'send',
    });
    this.sendButton = h('button', { type: 'submit', class: 'primary send' }, 'Send');
    this.stopButton = h('button', { type: 'button', class: 'danger stop', hidden: true, 'aria-keyshortcuts': 'Escape', onclick: () => this.o.onStop() }, 'Stop');
    this.el = h('form', { class: 'composer', 'aria-label': 'Send a message' }, this.input, this.sendButton, this.stopButton);
    this.el.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit();
    });
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.submit();
      }
    });
    this.input.addEventListener('input', () => this.autosize());
  }

  /** Escape anywhere inside `scope` stops a running answer (dialogs handle their own Escape). */
  bindEscape(scope: HTMLElement | Document | ShadowRoot): void {
    scope.addEventListener('keydown', (e) => {
      const k = e as KeyboardEvent;
      if (k.key === 'Escape' && this.busy && !(k.target instanceof HTMLDialogElement) && !(k.target as Element | null)?.closest?.('dialog')) {
        k.preventDefault();
        this.o.onStop();
      }
    });
  }

  setBusy(busy: boolean): void {
    const hadFocus = this.el.contains(this.el.getRootNode() instanceof ShadowRoot ? (this.el.getRootNode() as ShadowRoot).activeElement : document.activeElement);
    this.busy = busy;
    this.sendButton.hidden = busy;
    this.stopButton.hidden = !busy;
    if (hadFocus) this.input.focus();
  }

  focus(): void {
    this.input.focus();
  }

  private submit(): void {
    if (this.busy) return;
    const text = this.input.value;
    if (text.trim() === '') return;
    this.input.value = '';
    this.autosize();
    this.o.onSend(text);
    this.input.focus();
  }

  private autosize(): void {
    this.input.style.height = 'auto';
    this.input.style.height = `${Math.min(this.input.scrollHeight, 200)}px`;
  }
}
