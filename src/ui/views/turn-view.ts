/**
 * One exchange on screen: the user's message, then the assistant's side — per step the answer prose
 * (Markdown, sanitized; code blocks labelled, highlighted once the step is finished, with Copy) and a
 * card per tool call, in the order they happened — then how the turn ended, and its actions: Copy on
 * both messages, Edit on the user's (edit and resend), Regenerate on the answer, its stats (tokens, tokens
 * per second, the model), and the switcher
 * between this turn's alternatives. A turn is built live from the run's events, or from a stored turn
 * (`TurnView.stored`), which gives the same cards, prose and ending.
 *
 * Invariants: streaming prose shows what format/visible-text.ts allows (never call text); a finished step shows the content
 * the loop parsed once (the event's, or the stored message's), never a re-parse of raw text; prose is
 * re-rendered at most once per animation frame, whatever the token rate; actions appear only on a
 * turn that is in the conversation (kept) and are disabled while a run is going.
 */
import { callId, type AgentEvent, type FinishReason } from '../../agent/events';
import type { SerializedError } from '../../engine/contract';
import { pythonJson } from '../../format/python-json';
import type { ToolCall } from '../../format/types';
import { visibleText } from '../../format/visible-text';
import { enhanceCodeBlocks } from '../code-blocks';
import { answerStatsText } from '../answer-stats';
import type { AnswerStats, TurnNode } from '../conversation-tree';
import { h } from '../dom';
import { renderMarkdown } from '../markdown';
import { copyButton } from './copy-button';
import { errorBox } from './error-box';
import { ToolCard } from './tool-card';

const ENDINGS: Partial<Record<FinishReason, string>> = {
  aborted: 'Stopped.',
  max_steps: 'Stopped at the step limit (Settings → max steps) while the model was still calling tools.',
  length: 'The answer hit the per-step token limit and was cut off.',
  time_budget: 'The answer took longer than the time limit and was stopped.',
  no_progress: 'The model kept announcing tool calls without making one; the turn was ended.',
  unreadable_call: 'The model wrote a tool call this app could not read, so the turn ended here. Regenerate, or rephrase the question.',
  app_failure: 'A tool could not run because of a problem in this app (not in your question), so the turn ended here. Regenerate to try again; reload the page if it keeps happening.',
  repetition: 'The model started repeating itself, so this step was stopped (the repetition guard). Regenerate, or rephrase the question.',
};

/** What a turn's buttons do; the transcript view wires them to the session. */
export interface TurnActions {
  edit(node: string, text: string): void;
  regenerate(node: string): void;
  switchTo(node: string): void;
}

interface StepView {
  /** The step's streamed prose (the text before the model's python tag). */
  prose: string;
  /** The model's python tag has come: the prose before it is final. */
  tagged: boolean;
  /** The finished step's content (what Copy copies). */
  content: string | null;
  el: HTMLElement;
  finished: boolean;
}

export class TurnView {
  readonly el: HTMLElement;
  private readonly assistant: HTMLElement;
  private readonly footer: HTMLElement;
  private readonly userActions: HTMLElement;
  private readonly actions: HTMLElement;
  private readonly steps = new Map<number, StepView>();
  private readonly cards = new Map<string, ToolCard>();
  private dirty = new Set<StepView>();
  private frame = 0;
  private readonly bubble: HTMLElement;
  /** The tree node this turn shows, once it is in the conversation. */
  private nodeId: string | null = null;

  constructor(
    private readonly userText: string,
    private readonly on: TurnActions,
  ) {
    this.bubble = h('div', { class: 'bubble' }, userText);
    this.assistant = h('div', { class: 'assistant-body' });
    this.userActions = h('div', { class: 'msg-actions user-actions', hidden: true });
    this.actions = h('div', { class: 'turn-actions', hidden: true });
    this.footer = h('div', { class: 'turn-footer' }, h('div', { class: 'typing', 'aria-label': 'The model is working' }, h('span'), h('span'), h('span')));
    this.el = h(
      'article',
      { class: 'turn is-running' },
      h('div', { class: 'msg user', 'aria-label': 'You said' }, this.bubble, this.userActions),
      h('div', { class: 'msg assistant', 'aria-label': 'Assistant' }, this.assistant, this.footer, this.actions),
    );
  }

  /** A stored turn, as the live run showed it. */
  static stored(node: TurnNode, on: TurnActions): TurnView {
    const view = new TurnView(node.userText, on);
    const results = new Map(node.toolResults.map((r) => [r.callId, r]));
    const waiting: Array<{ callId: string; name: string }> = [];
    let step = 0;
    for (const m of node.reply) {
      if (m.role === 'assistant') {
        view.finishStep(step, typeof m.content === 'string' ? m.content : pythonJson(m.content));
        (m.toolCalls ?? []).forEach((call, i) => {
          const id = callId(step, i);
          view.addCard(id, call);
          waiting.push({ callId: id, name: call.kind === 'code' ? 'code_interpreter' : call.name });
        });
        step++;
      } else if (m.role === 'ipython' || m.role === 'tool') {
        const call = waiting.shift(); // none: the loop's answer to an eom without a call
        const result = call && results.get(call.callId);
        if (call && result) view.cards.get(call.callId)?.setResult(call.name, typeof m.content === 'string' ? m.content : pythonJson(m.content), result.isError, result.durationMs, result.source, result.failure);
      }
    }
    view.end(node.reason, true, null);
    view.showStats(node.stats);
    view.attach(node.id, [node.id]);
    return view;
  }

  get node(): string | null {
    return this.nodeId;
  }

  handle(e: AgentEvent): void {
    switch (e.type) {
      case 'step-start':
        this.step(e.step);
        break;
      case 'text-delta': {
        const s = this.step(e.step);
        if (e.part === 'prose') s.prose += e.text;
        else if (s.tagged) break;
        else s.tagged = true;
        this.schedule(s);
        break;
      }
      case 'step-finish':
        this.finishStep(e.step, e.content);
        break;
      case 'tool-call':
        this.addCard(e.callId, e.call);
        break;
      case 'confirmation-request':
        this.cards.get(e.callId)?.setStatus('confirming');
        break;
      case 'tool-result':
        this.cards.get(e.callId)?.setResult(e.name, e.content, e.isError, e.durationMs, e.source, e.failure);
        break;
      case 'error':
        break; // shown by end(), which also knows whether the turn was kept
      case 'finish':
        break;
    }
  }

  /** The run ended. `kept`: whether the conversation kept this turn (errors add nothing). */
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

  /** How the answer was generated (tokens, tokens per second, the model), under it; nothing when unknown. */
  showStats(stats: AnswerStats | undefined): void {
    this.footer.querySelector('.answer-stats')?.remove();
    if (stats) this.footer.append(h('p', { class: 'answer-stats' }, answerStatsText(stats)));
  }

  /** This turn is node `id` of the conversation, one of `siblings`: its actions and switcher appear. */
  attach(id: string, siblings: readonly string[]): void {
    this.nodeId = id;
    this.el.dataset.node = id;
    const index = siblings.indexOf(id);
    const switcher =
      siblings.length > 1
        ? h(
            'div',
            { class: 'alternatives', role: 'group', 'aria-label': 'Alternatives of this turn' },
            h('button', { type: 'button', class: 'secondary small alt-prev', 'aria-label': 'Previous alternative', disabled: index === 0, 'data-edge': index === 0, onclick: () => this.on.switchTo(siblings[index - 1]!) }, '‹'),
            h('span', { class: 'alt-position' }, `${index + 1} / ${siblings.length}`),
            h('button', { type: 'button', class: 'secondary small alt-next', 'aria-label': 'Next alternative', disabled: index === siblings.length - 1, 'data-edge': index === siblings.length - 1, onclick: () => this.on.switchTo(siblings[index + 1]!) }, '›'),
          )
        : null;
    this.userActions.replaceChildren(
      copyButton(() => this.userText, 'your message'),
      h('button', { type: 'button', class: 'secondary small edit', onclick: () => this.editUserText((text) => this.on.edit(id, text)) }, 'Edit'),
    );
    this.actions.replaceChildren(
      ...(switcher ? [switcher] : []),
      copyButton(() => this.answerText(), 'the answer'),
      h('button', { type: 'button', class: 'secondary small regenerate', onclick: () => this.on.regenerate(id) }, 'Regenerate'),
    );
    this.userActions.hidden = false;
    this.actions.hidden = false;
  }

  /** Disables the actions while a run is going. */
  setIdle(idle: boolean): void {
    for (const b of this.el.querySelectorAll<HTMLButtonElement>('.msg-actions button, .turn-actions button')) {
      if (!b.classList.contains('copy')) b.disabled = !idle || b.hasAttribute('data-edge');
    }
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

  /** The answer's prose as the model wrote it (Markdown), step by step. */
  private answerText(): string {
    return [...this.steps.values()]
      .map((s) => (s.content ?? streamingProse(s)).trim())
      .filter((t) => t !== '')
      .join('\n\n');
  }

  private addCard(callId: string, call: ToolCall): void {
    const card = new ToolCard(callId, call);
    this.cards.set(callId, card);
    this.assistant.append(card.el);
  }

  private finishStep(n: number, content: string): void {
    const s = this.step(n);
    s.finished = true;
    s.content = content;
    this.render(s, content);
  }

  private step(n: number): StepView {
    let s = this.steps.get(n);
    if (!s) {
      s = { prose: '', tagged: false, content: null, el: h('div', { class: 'prose', 'data-step': n, hidden: true }), finished: false };
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
    for (const s of this.dirty) if (!s.finished) this.render(s, streamingProse(s));
    this.dirty.clear();
  }

  private render(s: StepView, text: string): void {
    s.el.hidden = text.trim() === '';
    renderMarkdown(s.el, text);
    void enhanceCodeBlocks(s.el, s.finished).catch(() => {}); // the code stays readable, unhighlighted
  }
}

/** The prose of a step still streaming, as the one visible-text rule allows. */
function streamingProse(s: StepView): string {
  return visibleText(s.tagged ? [s.prose, ''] : [s.prose], { readCalls: true });
}
