/**
 * The conversation on screen, driven by the session's events: a TurnView per turn (a regenerated or
 * edited turn replaces its predecessor in place), Regenerate and Edit on the latest finished turn
 * (both reuse the engine's cached prefix: only what diverges is prefilled), and a
 * polite live region that announces how each turn ended (the streaming text itself is not read out
 * token by token).
 *
 * Invariant: the view follows the bottom while the reader is at the bottom, and stops following as
 * soon as they scroll up.
 */
import type { ChatSession, SessionEvent } from '../chat-session';
import { h } from '../dom';
import { TurnView } from './turn-view';

export class TranscriptView {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private readonly empty: HTMLElement;
  private readonly announcer: HTMLElement;
  private readonly turns = new Map<number, TurnView>();
  private latest: TurnView | null = null;
  private follow = true;

  constructor(
    private readonly session: ChatSession,
    emptyText: string,
  ) {
    this.empty = h('p', { class: 'empty-hint' }, emptyText);
    this.list = h('div', { class: 'turns' });
    this.announcer = h('div', { class: 'visually-hidden', 'aria-live': 'polite', role: 'status' });
    this.el = h('section', { class: 'transcript', 'aria-label': 'Conversation', tabindex: -1 }, this.empty, this.list, this.announcer);
    this.el.addEventListener('scroll', () => {
      this.follow = this.el.scrollHeight - this.el.scrollTop - this.el.clientHeight < 40;
    });
    // Content grows after events too (Markdown renders once per frame; the viewport can shrink).
    const resized = new ResizeObserver(() => this.keepAtBottom());
    resized.observe(this.list);
    resized.observe(this.el);
    session.on((e) => this.handle(e));
  }

  private handle(e: SessionEvent): void {
    switch (e.type) {
      case 'turn-start': {
        const view = new TurnView(e.turn, e.userText);
        const old = e.replaces === null ? undefined : this.turns.get(e.replaces);
        if (old) {
          old.el.replaceWith(view.el);
          this.turns.delete(e.replaces!);
        } else this.list.append(view.el);
        this.latest?.setActions(null);
        this.turns.set(e.turn, view);
        this.latest = view;
        this.empty.hidden = true;
        this.follow = true;
        break;
      }
      case 'agent':
        this.turns.get(e.turn)?.handle(e.event);
        break;
      case 'turn-end': {
        const view = this.turns.get(e.turn);
        view?.end(e.reason, e.kept, e.error);
        this.announcer.textContent = e.error ? 'The answer failed.' : e.reason === 'aborted' ? 'Stopped.' : 'Answer ready.';
        if (view && view === this.latest) view.setActions(this.actions());
        break;
      }
      case 'cleared':
        this.list.replaceChildren();
        this.turns.clear();
        this.latest = null;
        this.empty.hidden = false;
        break;
      case 'busy':
        break;
    }
    this.keepAtBottom();
  }

  private keepAtBottom(): void {
    if (this.follow) this.el.scrollTop = this.el.scrollHeight;
  }

  private actions(): HTMLElement {
    return h(
      'div',
      { class: 'turn-actions' },
      h('button', { type: 'button', class: 'secondary small regenerate', onclick: () => void this.session.regenerate() }, 'Regenerate'),
      h('button', { type: 'button', class: 'secondary small edit', onclick: () => this.latest?.editUserText((text) => void this.session.editLast(text)) }, 'Edit message'),
    );
  }
}
