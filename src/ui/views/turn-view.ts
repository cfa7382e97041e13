/**
 * One exchange on screen: the user's message, then the assistant's side as the run streams it —
 * per step the answer prose (Markdown, sanitized) and a card per tool call, in the order they
 * happened — then how the turn ended. Call text is never shown as prose (see visible-prose.ts); a
 * finished step shows the content the loop parsed once, from the event, never a re-parse of raw text.
 *
 * Invariant: prose is re-rendered at most once per animation frame, whatever the token rate.
 */
import type { AgentEvent, FinishReason } from '../../agent/events';
import type { SerializedError } from '../../engine/contract';
import { h } from '../dom';
import { renderMarkdown } from '../markdown';
import { streamingProse } from '../visible-prose';
import { errorBox } from './error-box';
import { ToolCard } from './tool-card';

const ENDINGS: Partial<Record<FinishReason, string>> = {
  aborted: 'Stopped.',
  max_steps: 'Stopped at the step limit (Settings → max steps) while the model was still calling tools.',
  length: 'The answer hit the per-step token limit and was cut off.',
  time_budget: 'The answer took longer than the time limit and was stopped.',
  no_progress: 'The model kept announcing tool calls without making one; the turn was ended.',
};

interface StepView {
  /** The step's streamed prose (the text before the model's python tag). */
  prose: string;
  el: HTMLElement;
  finished: boolean;
}

export class TurnView {
  readonly el: HTMLElement;
  private readonly assistant: HTMLElement;
  private readonly footer: HTMLElement;
  private readonly steps = new Map<number, StepView>();
  private readonly cards = new Map<string, ToolCard>();
  private dirty = new Set<StepView>();
  private frame = 0;

  private readonly bubble: HTMLElement;

  constructor(
    readonly turn: number,
    private readonly userText: string,
  ) {
    this.bubble = h('div', { class: 'bubble' }, userText);
    this.assistant = h('div', { class: 'assistant-body' });
    this.footer = h('div', { class: 'turn-footer' }, h('div', { class: 'typing', 'aria-label': 'The model is working' }, h('span'), h('span'), h('span')));
    this.el = h(
      'article',
      { class: 'turn is-running', 'data-turn': turn },
      h('div', { class: 'msg user', 'aria-label': 'You said' }, this.bubble),
      h('div', { class: 'msg assistant', 'aria-label': 'Assistant' }, this.assistant, this.footer),
    );
  }

  handle(e: AgentEvent): void {
    switch (e.type) {
      case 'step-start':
        this.step(e.step);
        break;
      case 'text-delta': {
        if (e.part !== 'prose') break;
        const s = this.step(e.step);
        s.prose += e.text;
        this.schedule(s);
        break;
      }
      case 'step-finish': {
        const s = this.step(e.step);
        s.finished = true;
        this.render(s, e.content);
        break;
      }
      case 'tool-call': {
        const card = new ToolCard(e.callId, e.call);
        this.cards.set(e.callId, card);
        this.assistant.append(card.el);
        break;
      }
      case 'confirmation-request':
        this.cards.get(e.callId)?.setStatus('confirming');
        break;
      case 'tool-result':
        this.cards.get(e.callId)?.setResult(e.name, e.content, e.isError, e.durationMs);
        break;
      case 'error':
        break; // shown by end(), which also knows whether the turn was kept
      case 'finish':
        break;
    }
  }

  /** The run ended. `kept`: whether the transcript kept this turn (errors roll it back). */
  end(reason: FinishReason, kept: boolean, error: SerializedError | null): void {
    this.el.classList.remove('is-running');
    this.flush();
    for (const card of this.cards.values()) card.stop();
    this.footer.querySelector('.typing')?.remove();
    const ending = ENDINGS[reason];
    if (error) {
      this.footer.append(errorBox(error));
      if (!kept) this.footer.append(h('p', { class: 'turn-note' }, 'This turn was not kept in the conversation: send it again or regenerate.'));
    } else if (ending) this.footer.append(h('p', { class: `turn-note reason-${reason}` }, ending));
    if (this.assistant.querySelector('.prose:not([hidden]), .tool-card') === null && !error) {
      this.assistant.append(h('p', { class: 'turn-note' }, reason === 'aborted' ? 'No answer yet.' : 'The model gave an empty answer.'));
    }
    this.el.dataset.reason = reason;
  }

  /** Turns the user's message into an editor; `onSubmit` gets the edited text (Cancel restores it). */
  editUserText(onSubmit: (text: string) => void): void {
    if (this.bubble.querySelector('textarea')) return;
    const input = h('textarea', { class: 'edit-input', rows: 3, 'aria-label': 'Edit your message' });
    input.value = this.userText;
    const restore = () => this.bubble.replaceChildren(this.userText);
    const send = h('button', { type: 'button', class: 'primary small send-edit', onclick: () => input.value.trim() !== '' && onSubmit(input.value) }, 'Send edited message');
    const cancel = h('button', { type: 'button', class: 'secondary small', onclick: restore }, 'Cancel');
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') restore();
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && input.value.trim() !== '') {
        e.preventDefault();
        onSubmit(input.value);
      }
    });
    this.bubble.replaceChildren(input, h('div', { class: 'edit-actions' }, send, cancel));
    input.focus();
  }

  /** Adds or removes the turn's actions (only the latest turn has them, and only when idle). */
  setActions(actions: HTMLElement | null): void {
    this.footer.querySelector('.turn-actions')?.remove();
    if (actions) this.footer.append(actions);
  }

  private step(n: number): StepView {
    let s = this.steps.get(n);
    if (!s) {
      s = { prose: '', el: h('div', { class: 'prose', 'data-step': n, hidden: true }), finished: false };
      this.steps.set(n, s);
      this.assistant.append(s.el);
    }
    return s;
  }

  private schedule(s: StepView): void {
    this.dirty.add(s);
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => this.flush());
  }

  private flush(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    for (const s of this.dirty) if (!s.finished) this.render(s, streamingProse(s.prose));
    this.dirty.clear();
  }

  private render(s: StepView, text: string): void {
    s.el.hidden = text.trim() === '';
    renderMarkdown(s.el, text);
  }
}
