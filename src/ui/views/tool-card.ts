/**
 * A card per tool call: the call (code as code), its live status, and the result, in a collapsible
 * `<details>`: search results as titled links with their host, Wolfram|Alpha's pods as text, code's
 * stdout, stderr, value and error apart. Everything the model or the tool wrote is inserted as text;
 * a source's link is http(s) only and opens in a new tab without a referrer.
 *
 * Status goes running → (waiting for confirmation → running) → done | failed | denied | timed out |
 * stderr output | stopped — or, for a call that did not run, could not be read | could not run | not run — read from the result's content as well as the error flag (tool-outcome.ts):
 * a traceback returned as a value is a failure. A card that has a result never changes again.
 */
import type { CallFailure } from '../../agent/events';
import type { ToolCall } from '../../format/types';
import { h, replace } from '../dom';
import { formatMs } from '../format-units';
import { callDisplay, resultSections, type Pod, type ResultSection, type Source } from '../tool-display';
import { toolOutcome, type ToolOutcome } from '../tool-outcome';

export type CardStatus = 'running' | 'confirming' | 'stopped' | ToolOutcome | CallFailure['kind'];

const STATUS_TEXT: Record<CardStatus, string> = {
  running: 'running…',
  confirming: 'waiting for your OK',
  done: 'done',
  failed: 'failed',
  denied: 'denied',
  timeout: 'timed out',
  stderr: 'stderr output',
  stopped: 'stopped',
  unreadable_call: 'could not be read',
  app_failure: 'could not run',
  not_run: 'not run',
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
      { class: 'tool-card', open: true, 'data-call-id': callId, 'data-tool': d.name, 'data-status': 'running' },
      h('summary', {}, h('span', { class: 'tool-name' }, d.name), h('span', { class: 'tool-summary' }, d.summary), this.status),
      h('div', { class: 'tool-section' }, h('div', { class: 'tool-label' }, lang), h('pre', { class: `tool-call lang-${d.language}` }, h('code', {}, d.body))),
      this.result,
    );
  }

  setStatus(status: CardStatus, extra = ''): void {
    if (this.finished) return;
    this.status.dataset.status = status;
    this.el.dataset.status = status;
    this.status.textContent = extra ? `${STATUS_TEXT[status]} · ${extra}` : STATUS_TEXT[status];
  }

  /**
   * `source`: who answered when not the tool's own service ("local math"), shown on the card;
   * `failure`: the call did not run, and the card says why in the app's words (never the model's result).
   */
  setResult(name: string, content: string, isError: boolean, durationMs: number, source?: string, failure?: CallFailure): void {
    if (failure) {
      this.setStatus(failure.kind);
      this.finished = true;
      replace(this.result, section({ label: 'not run', text: failure.message, error: true }));
      return;
    }
    this.setStatus(toolOutcome(name, content, isError), formatMs(durationMs));
    this.finished = true;
    if (source) this.el.dataset.source = source;
    replace(this.result, ...resultSections(name, content, isError, source).map(section));
  }

  /** The run stopped before this call had a result. */
  stop(): void {
    this.setStatus('stopped');
    this.finished = true;
  }
}

function section(s: ResultSection): HTMLElement {
  // A result can be long: its box scrolls, so it takes focus (keyboard users scroll it too).
  const body = s.sources ? sourceList(s.sources) : s.pods ? podList(s.pods) : h('pre', { tabindex: 0 }, s.text);
  return h('div', { class: `tool-section${s.error ? ' is-error' : ''}`, 'data-section': s.label }, h('div', { class: 'tool-label' }, s.label), body);
}

function sourceList(sources: Source[]): HTMLElement {
  return h(
    'ol',
    { class: 'sources' },
    ...sources.map((s) =>
      h(
        'li',
        { class: 'source' },
        s.url
          ? h('a', { class: 'source-title', href: s.url, target: '_blank', rel: 'noopener noreferrer nofollow', referrerpolicy: 'no-referrer' }, s.title)
          : h('span', { class: 'source-title' }, s.title),
        h('span', { class: 'source-host' }, s.age ? `${s.host} · ${s.age}` : s.host),
        s.description ? h('p', { class: 'source-description' }, s.description) : null,
      ),
    ),
  );
}

function podList(pods: Pod[]): HTMLElement {
  return h('dl', { class: 'pods' }, ...pods.flatMap((p) => [h('dt', {}, p.title), h('dd', {}, p.text)]));
}
