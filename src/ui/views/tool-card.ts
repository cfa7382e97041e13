/**
 * A card per tool call: the call (code as code), its live status, and the result, in a collapsible
 * `<details>`. Everything the model or the tool wrote is inserted as text.
 *
 * Status goes running → (waiting for confirmation → running) → done | failed | stopped; a card that
 * has a result never changes again.
 */
import type { ToolCall } from '../../format/types';
import { h, replace } from '../dom';
import { formatMs } from '../format-units';
import { callDisplay, resultSections } from '../tool-display';

export type CardStatus = 'running' | 'confirming' | 'done' | 'failed' | 'stopped';

const STATUS_TEXT: Record<CardStatus, string> = {
  running: 'running…',
  confirming: 'waiting for your OK',
  done: 'done',
  failed: 'failed',
  stopped: 'stopped',
};

export class ToolCard {
  readonly el: HTMLDetailsElement;
  private readonly status: HTMLElement;
  private readonly result: HTMLElement;
  private finished = false;

  constructor(callId: string, call: ToolCall) {
    const d = callDisplay(call);
    this.status = h('span', { class: 'tool-status', 'data-status': 'running' }, STATUS_TEXT.running);
    this.result = h('div', { class: 'tool-result' });
    const lang = d.language === 'python' ? 'Python' : d.language === 'json' ? 'Arguments' : call.kind === 'builtin' ? 'Query' : 'Call';
    this.el = h(
      'details',
      { class: 'tool-card', open: true, 'data-call-id': callId, 'data-tool': d.name },
      h('summary', {}, h('span', { class: 'tool-name' }, d.name), h('span', { class: 'tool-summary' }, d.summary), this.status),
      h('div', { class: 'tool-section' }, h('div', { class: 'tool-label' }, lang), h('pre', { class: `tool-call lang-${d.language}` }, h('code', {}, d.body))),
      this.result,
    );
  }

  setStatus(status: CardStatus, extra = ''): void {
    if (this.finished) return;
    this.status.dataset.status = status;
    this.status.textContent = extra ? `${STATUS_TEXT[status]} · ${extra}` : STATUS_TEXT[status];
  }

  setResult(name: string, content: string, isError: boolean, durationMs: number): void {
    this.setStatus(isError ? 'failed' : 'done', formatMs(durationMs));
    this.finished = true;
    replace(
      this.result,
      ...resultSections(name, content, isError).map((s) =>
        h('div', { class: `tool-section${s.error ? ' is-error' : ''}`, 'data-section': s.label }, h('div', { class: 'tool-label' }, s.label), h('pre', {}, s.text)),
      ),
    );
  }

  /** The run stopped before this call had a result. */
  stop(): void {
    this.setStatus('stopped');
    this.finished = true;
  }
}
