/**
 * The conversation on screen, driven by the session's events: the shown branch's turns (a TurnView
 * each), the running turn streaming in, and the empty state when there is nothing yet. A regenerate or
 * an edit of turn k replaces turn k and what followed it (they stay in the tree, one switch away); a
 * switch or a restore shows the active path again from the stored turns. A polite live region
 * announces how each turn ended (the streaming text itself is not read out token by token). When the
 * context policy has dropped earlier messages, a marker before the first turn still in the context says
 * how many, and the turns out of it are dimmed.
 *
 * Invariants: the turns shown are the session's active path, in order, plus at most one turn that is
 * running or that failed and was not kept (shown last, with its error); the view follows the bottom
 * while the reader is at the bottom, and stops following as soon as they scroll up.
 */
import { NOTHING_DROPPED, type DroppedRange } from '../../agent/context-policy';
import type { ChatSession, SessionEvent } from '../chat-session';
import { h } from '../dom';
import { TurnView, type TurnActions } from './turn-view';

export class TranscriptView {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private readonly announcer: HTMLElement;
  /** The view of each run, while it runs and after (kept or not). */
  private readonly runs = new Map<number, TurnView>();
  /** The view behind each turn element in the list. */
  private readonly viewOf = new WeakMap<Element, TurnView>();
  private readonly actions: TurnActions;
  private follow = true;

  constructor(
    private readonly session: ChatSession,
    private readonly empty: HTMLElement,
  ) {
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
    this.actions = {
      edit: (node, text) => void session.edit(node, text),
      regenerate: (node) => void session.regenerate(node),
      switchTo: (node) => session.switchTo(node),
    };
    session.on((e) => this.handle(e));
  }

  /** The views shown, first to last. */
  private get views(): TurnView[] {
    return [...this.list.children].flatMap((el) => this.viewOf.get(el) ?? []);
  }

  private handle(e: SessionEvent): void {
    switch (e.type) {
      case 'turn-start': {
        const view = this.mount(new TurnView(e.userText, this.actions));
        this.runs.set(e.turn, view);
        const replaced = e.replaces === null ? undefined : this.views.find((v) => v.node === e.replaces);
        if (replaced) {
          // The replaced turn and what followed it belong to the other branch now.
          let el: Element | null = replaced.el;
          while (el) {
            const next: Element | null = el.nextElementSibling;
            el.remove();
            el = next;
          }
        } else this.dropUnkept();
        this.list.append(view.el);
        this.empty.hidden = true;
        this.follow = true;
        break;
      }
      case 'agent':
        this.runs.get(e.turn)?.handle(e.event);
        if (e.event.type === 'context-dropped') this.markContext(e.event.dropped);
        break;
      case 'turn-end': {
        const view = this.runs.get(e.turn);
        this.runs.delete(e.turn);
        view?.end(e.reason, e.kept, e.error);
        this.announcer.textContent = e.error ? 'The answer failed.' : e.reason === 'aborted' ? 'Stopped.' : 'Answer ready.';
        if (!view) break;
        if (e.node) {
          view.attach(e.node, this.session.siblings(e.node));
          view.showStats(this.session.path.find((n) => n.id === e.node)?.stats);
        }
        else {
          // Not kept: show the shown branch again, and the failed turn after it.
          this.showPath();
          view.el.dataset.unkept = 'true';
          this.list.append(view.el);
          this.empty.hidden = true;
        }
        this.markContext(this.session.context()?.dropped ?? NOTHING_DROPPED);
        break;
      }
      case 'switched':
      case 'cleared':
        this.showPath();
        this.markContext(this.session.context()?.dropped ?? NOTHING_DROPPED);
        break;
      case 'busy':
        for (const v of this.views) v.setIdle(!e.busy);
        break;
      case 'allowed':
        break;
    }
    this.keepAtBottom();
  }

  /** Shows the session's active path from its stored turns. */
  private showPath(): void {
    const views = this.session.path.map((node) => {
      const view = this.mount(TurnView.stored(node, this.actions));
      view.attach(node.id, this.session.siblings(node.id));
      return view;
    });
    this.list.replaceChildren(...views.map((v) => v.el));
    for (const v of views) v.setIdle(!this.session.busy);
    this.empty.hidden = views.length > 0;
    this.follow = true;
  }

  /**
   * Puts the marker before the first turn whose question is at or after `dropped.to` (message indices
   * of the shown branch, a running turn last) and dims the turns whose question is out of the context.
   */
  private markContext(dropped: DroppedRange): void {
    this.list.querySelector(':scope > .context-marker')?.remove();
    for (const el of this.list.querySelectorAll('.turn.out-of-context')) el.classList.remove('out-of-context');
    const count = dropped.to - dropped.from;
    if (count <= 0) return;
    const sizes = new Map(this.session.path.map((n) => [n.id, 1 + n.reply.length]));
    let start = 0;
    for (const view of this.views) {
      if (start >= dropped.to) {
        const text = `${count} earlier ${count === 1 ? 'message is' : 'messages are'} no longer in the model’s context`;
        view.el.before(h('div', { class: 'context-marker', role: 'note', 'data-dropped': count, title: 'The context policy (Settings → When the context is full) dropped them to make room; the Inspector lists them.' }, text));
        return;
      }
      if (start >= dropped.from) view.el.classList.add('out-of-context');
      const size = view.node === null ? undefined : sizes.get(view.node);
      if (size === undefined) return;
      start += size;
    }
  }

  /** A failed turn that was not kept leaves when the next one starts. */
  private dropUnkept(): void {
    for (const el of this.list.querySelectorAll('[data-unkept="true"]')) el.remove();
  }

  private mount(view: TurnView): TurnView {
    this.viewOf.set(view.el, view);
    return view;
  }

  private keepAtBottom(): void {
    if (this.follow) this.el.scrollTop = this.el.scrollHeight;
  }
}
