/** The download/load progress bar: a `<progress>` with bytes, percent and ETA; hidden when idle. */
import type { LoadProgress } from '../../engine/contract';
import { h } from '../dom';
import { ProgressTracker } from '../load-progress';

export class ProgressView {
  readonly el: HTMLElement;
  private readonly bar: HTMLProgressElement;
  private readonly label: HTMLElement;
  private tracker = new ProgressTracker();

  constructor() {
    this.bar = h('progress', { max: 100, 'aria-label': 'Model download and load progress' });
    this.label = h('span', { class: 'progress-label' });
    this.el = h('div', { class: 'load-progress', hidden: true, role: 'group', 'aria-label': 'Loading the model' }, this.bar, this.label);
  }

  start(text: string): void {
    this.tracker = new ProgressTracker();
    this.el.hidden = false;
    this.bar.removeAttribute('value'); // indeterminate until sizes are known
    this.label.textContent = text;
  }

  update(p: LoadProgress): void {
    const view = this.tracker.update(p, performance.now());
    this.el.hidden = false;
    if (view.percent === null) this.bar.removeAttribute('value');
    else this.bar.value = view.percent;
    this.label.textContent = view.label;
  }

  hide(): void {
    this.el.hidden = true;
  }
}
