/**
 * The message box: Enter sends, Shift+Enter is a newline, Escape stops a running answer (also
 * from anywhere in the chat). Send and Stop swap while a run is going; focus stays in the box.
 * Until a model is ready Send is disabled and the line under the box says why (the text can be
 * typed meanwhile and is kept); once ready, that line gives the keys and the context meter.
 */
import { h, uid } from '../dom';

export interface ComposerOptions {
  onSend: (text: string) => void;
  onStop: () => void;
  placeholder?: string;
}

const KEYS_HINT = 'Enter sends · Shift+Enter for a new line · Escape stops';

export class Composer {
  readonly el: HTMLFormElement;
  readonly input: HTMLTextAreaElement;
  /** Under the box: why Send is off, or the keys; the context meter sits beside it. */
  readonly footer: HTMLElement;
  private readonly note: HTMLElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly stopButton: HTMLButtonElement;
  private busy = false;
  private ready = false;

  constructor(private readonly o: ComposerOptions) {
    const noteId = uid('composer-note');
    this.input = h('textarea', {
      class: 'composer-input',
      rows: 1,
      placeholder: o.placeholder ?? 'Message the model',
      'aria-label': 'Message',
      'aria-describedby': noteId,
      enterkeyhint: 'send',
    });
    this.sendButton = h('button', { type: 'submit', class: 'primary send', disabled: true, 'aria-describedby': noteId }, 'Send');
    this.stopButton = h('button', { type: 'button', class: 'danger stop', hidden: true, 'aria-keyshortcuts': 'Escape', onclick: () => this.o.onStop() }, 'Stop');
    this.note = h('p', { class: 'composer-note', id: noteId, 'data-ready': 'false' }, 'Loading…');
    this.footer = h('div', { class: 'composer-footer' }, this.note);
    this.el = h('form', { class: 'composer', 'aria-label': 'Send a message' }, h('div', { class: 'composer-row' }, this.input, this.sendButton, this.stopButton), this.footer);
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

  /** Send works only when `ready`; otherwise `reason` says what to do first. */
  setReady(ready: boolean, reason = ''): void {
    this.ready = ready;
    this.sendButton.disabled = !ready;
    this.note.dataset.ready = String(ready);
    this.note.textContent = ready ? KEYS_HINT : reason;
  }

  focus(): void {
    this.input.focus();
  }

  /** Puts `text` in the box (an example prompt), ready to send or edit. */
  fill(text: string): void {
    this.input.value = text;
    this.autosize();
    this.input.focus();
  }

  private submit(): void {
    if (this.busy || !this.ready) return;
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
