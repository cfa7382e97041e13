/** An error in plain words (what happened, what to do), with the original message small. */
import { h } from '../dom';
import { plainError, type PlainError } from '../error-text';

/** `explained`: a fuller explanation than the error's code gives (a diagnosed load failure). */
export function errorBox(error: unknown, explained?: PlainError & { cause?: string; host?: string }): HTMLElement {
  const p = explained ?? plainError(error);
  return h(
    'div',
    { class: 'error-box', role: 'alert', 'data-code': p.code, 'data-cause': explained?.cause ?? null, 'data-host': explained?.host ?? null },
    h('strong', {}, p.title),
    ' ',
    h('span', {}, p.advice),
    p.detail && p.detail !== p.title ? h('details', { class: 'error-detail' }, h('summary', {}, 'Details'), h('code', {}, p.detail)) : null,
  );
}
