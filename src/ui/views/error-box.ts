/** An error in plain words (what happened, what to do), with the original message small. */
import { h } from '../dom';
import { plainError } from '../error-text';

export function errorBox(error: unknown): HTMLElement {
  const p = plainError(error);
  return h(
    'div',
    { class: 'error-box', role: 'alert', 'data-code': p.code },
    h('strong', {}, p.title),
    ' ',
    h('span', {}, p.advice),
    p.detail && p.detail !== p.title ? h('details', { class: 'error-detail' }, h('summary', {}, 'Details'), h('code', {}, p.detail)) : null,
  );
}
