/**
 * A small Copy button: copies `text()` and says "Copied" (or "Copy failed") for a moment. Its
 * accessible name is the visible word plus what it copies ("Copy your message"), so the name always
 * contains what is shown.
 */
import { copyText } from '../copy-text';
import { h } from '../dom';

export function copyButton(text: () => string, what: string, cls = 'copy'): HTMLButtonElement {
  const label = h('span', { class: 'copy-label' }, 'Copy');
  const button = h('button', { type: 'button', class: `secondary small ${cls}` }, label, h('span', { class: 'visually-hidden' }, ` ${what}`));
  let timer = 0;
  button.addEventListener('click', async () => {
    const ok = await copyText(text(), button.getRootNode() instanceof ShadowRoot ? (button.getRootNode() as ShadowRoot) : document.body);
    label.textContent = ok ? 'Copied' : 'Copy failed';
    button.dataset.copied = String(ok);
    clearTimeout(timer);
    timer = window.setTimeout(() => {
      label.textContent = 'Copy';
      delete button.dataset.copied;
    }, 1500);
  });
  return button;
}
