/** How full the model's context is: "812 / 4,096 tokens" and a meter, warning near the end. */
import { h } from '../dom';

export class ContextMeter {
  readonly el: HTMLElement;
  private readonly meter: HTMLMeterElement;
  private readonly label: HTMLElement;

  constructor() {
    this.meter = h('meter', { min: 0, max: 1, value: 0, low: 0.6, high: 0.85, optimum: 0, 'aria-label': 'Context used' });
    this.label = h('span', { class: 'context-label' });
    this.el = h('div', { class: 'context-meter', hidden: true, title: 'Tokens of this conversation in the model’s context window' }, this.meter, this.label);
  }

  /** `used` of `window` tokens; null hides the meter (no model, or nothing to count yet). */
  show(used: number | null, window: number | null): void {
    if (used === null || window === null) {
      this.el.hidden = true;
      return;
    }
    this.el.hidden = false;
    this.meter.max = window;
    this.meter.low = window * 0.6;
    this.meter.high = window * 0.85;
    this.meter.value = Math.min(used, window);
    this.el.dataset.used = String(used);
    this.el.dataset.window = String(window);
    this.label.textContent = `${used.toLocaleString('en-US')} / ${window.toLocaleString('en-US')} tokens`;
  }
}
