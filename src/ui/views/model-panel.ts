/**
 * The model picker, driven by the capability report: WebGPU / shader-f16 / memory estimate, every
 * model grouped by whether it fits (with the reason when not), the recommendation pre-selected and
 * explained when the default model will not fit; a Load button, the progress bar and the state (a
 * failed load says why, diagnosed: load-diagnosis.ts).
 */
import type { ModelFit } from '../../engine/model-fit';
import { MODELS } from '../../engine/models';
import { modelHosts } from '../download-plan';
import { h, replace, uid } from '../dom';
import { formatBytes } from '../format-units';
import { GROUP_LABELS, type ModelChoices } from '../model-choices';
import type { LoadState } from '../model-loader';
import { errorBox } from './error-box';
import { ProgressView } from './progress-view';

export class ModelPanel {
  readonly el: HTMLElement;
  readonly select: HTMLSelectElement;
  private readonly report: HTMLElement;
  private readonly explanation: HTMLElement;
  private readonly description: HTMLElement;
  private readonly loadButton: HTMLButtonElement;
  private readonly state: HTMLElement;
  private readonly progress = new ProgressView();
  private choices: ModelChoices | null = null;
  private cached = new Set<string>();

  constructor(onLoad: (modelId: string) => void) {
    const id = uid('model');
    this.select = h('select', { id, class: 'model-select', disabled: true });
    this.report = h('ul', { class: 'capability-report', 'aria-label': 'What this device supports' }, h('li', {}, 'Checking WebGPU…'));
    this.explanation = h('div', { class: 'fit-explanation', hidden: true });
    this.description = h('p', { class: 'model-description hint' });
    this.loadButton = h('button', { type: 'button', class: 'primary load', disabled: true, onclick: () => onLoad(this.select.value) }, 'Load');
    this.state = h('div', { class: 'load-state', role: 'status' }, 'No model loaded.');
    this.select.addEventListener('change', () => this.describe());
    // The choice and Load come first (on a phone they are what the first screen shows); what this
    // device supports and why a model will not fit follow.
    this.el = h(
      'section',
      { class: 'panel model-panel', 'aria-label': 'Model' },
      h('h2', {}, h('label', { for: id }, 'Model')),
      this.select,
      h('div', { class: 'row' }, this.loadButton),
      this.progress.el,
      this.state,
      this.description,
      this.explanation,
      this.report,
    );
  }

  /** Shows another way to pick a model (the server picker) under the Load button. */
  addSource(el: HTMLElement): void {
    this.progress.el.before(el);
  }

  setChoices(choices: ModelChoices, selected?: string): void {
    this.choices = choices;
    replace(this.report, ...choices.report.map((line) => h('li', {}, line)));
    this.explanation.hidden = choices.explanation.length === 0;
    replace(this.explanation, ...choices.explanation.map((line) => h('p', {}, line)));
    const groups = new Map<string, HTMLOptGroupElement>();
    const opts: HTMLOptGroupElement[] = [];
    for (const c of choices.choices) {
      let g = groups.get(c.group);
      if (!g) {
        g = h('optgroup', { label: GROUP_LABELS[c.group] });
        groups.set(c.group, g);
        opts.push(g);
      }
      g.append(h('option', { value: c.id, 'data-fit': c.fit.status }, c.text));
    }
    replace(this.select, ...opts);
    const want = selected && choices.choices.some((c) => c.id === selected) ? selected : choices.defaultId;
    if (want) this.select.value = want;
    this.select.disabled = false;
    this.loadButton.disabled = false;
    this.describe();
  }

  /** The verdict for `id` on this device (null before the capability report is in). */
  fitOf(id: string): ModelFit | null {
    return this.choices?.choices.find((c) => c.id === id)?.fit ?? null;
  }

  isCached(id: string): boolean {
    return this.cached.has(id);
  }

  /** Marks models whose weights are already in the browser's cache. */
  setCached(ids: Set<string>): void {
    this.cached = ids;
    this.describe();
  }

  showLoad(state: LoadState): void {
    const label = (id: string) => MODELS.find((m) => m.id === id)?.label ?? id;
    this.loadButton.disabled = false;
    switch (state.kind) {
      case 'idle':
        this.progress.hide();
        replace(this.state, 'No model loaded.');
        break;
      case 'loading':
        if (state.progress) this.progress.update(state.progress);
        else this.progress.start(`Starting ${label(state.modelId)}…`);
        replace(this.state, `Loading ${label(state.modelId)}…`);
        break;
      case 'loaded':
        this.progress.hide();
        replace(this.state, h('span', { class: 'ok' }, `Loaded: ${label(state.info.modelId)}`), ` on ${state.info.device}.`);
        this.el.dataset.loaded = state.info.modelId;
        break;
      case 'failed':
        this.progress.hide();
        replace(
          this.state,
          errorBox(state.error, state.diagnosis ?? undefined),
          ...(state.kept ? [h('p', { class: 'kept-model' }, h('span', { class: 'ok' }, `Still loaded: ${label(state.kept.modelId)}`), ` on ${state.kept.device}.`)] : []),
        );
        break;
    }
  }

  private describe(): void {
    const c = this.choices?.choices.find((x) => x.id === this.select.value);
    if (!c) return;
    const m = c.fit.model;
    const where = m.backend === 'webllm' ? 'downloaded once from the public MLC weights, then cached by the browser' : m.backend === 'onnx' && m.remote ? 'downloaded once from the model hub, then cached' : 'served by this site';
    replace(
      this.description,
      `${m.description} ${formatBytes(m.sizeBytes)}, ${where}${this.cached.has(m.id) ? ' (already cached)' : ''}. `,
      h('span', { class: `fit fit-${c.fit.status}` }, c.fit.status === 'ok' ? `✓ ${c.fit.reason}` : c.fit.status === 'maybe' ? `? ${c.fit.reason}` : `✗ ${c.fit.reason}`),
    );
    this.loadButton.textContent = modelHosts(m).length > 0 && !this.cached.has(m.id) ? `Download & load (${formatBytes(m.sizeBytes)})` : 'Load';
  }
}
