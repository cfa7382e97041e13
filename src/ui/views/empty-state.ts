/**
 * What the empty conversation shows: before a model is ready, what to do first; once one is, example
 * questions it can answer with the tools that are on (models/examples.json) — a click puts one in the
 * message box.
 */
import type { ModelExample } from '../../engine/model-examples';
import { h, replace } from '../dom';

export class EmptyState {
  readonly el: HTMLElement;

  constructor(private readonly onPick: (text: string) => void) {
    this.el = h('div', { class: 'empty-state' });
  }

  /** No model yet: `hint` says what to do. */
  showHint(hint: string): void {
    this.el.dataset.state = 'hint';
    replace(this.el, h('p', { class: 'empty-hint' }, hint));
  }

  /** A model is ready: its examples (or, when none fits the tools that are on, `none`). */
  showExamples(modelLabel: string, examples: readonly ModelExample[], none: string): void {
    this.el.dataset.state = 'examples';
    if (examples.length === 0) {
      replace(this.el, h('p', { class: 'empty-hint' }, none));
      return;
    }
    replace(
      this.el,
      h('p', { class: 'empty-hint' }, `${modelLabel} is ready. Try one of these, or ask your own:`),
      h(
        'ul',
        { class: 'examples', 'aria-label': 'Example questions' },
        ...examples.map((e) => h('li', {}, h('button', { type: 'button', class: 'secondary example', 'data-tools': e.tools.join(' '), onclick: () => this.onPick(e.text) }, e.text))),
      ),
    );
  }
}
