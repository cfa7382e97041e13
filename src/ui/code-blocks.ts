/**
 * Code blocks in rendered answers: a header with the fence's language and a Copy button, and syntax
 * highlighting by highlight.js, loaded the first time a finished answer has code (its own chunk: the
 * page does not pay for it up front). The highlighter's output is sanitized again to spans with
 * `hljs-*` classes, so the Markdown module's guarantees still hold (nothing can run or load).
 *
 * Invariants: a block is enhanced once; highlighting never changes the code's text (copy gives exactly
 * the code as written); a language highlight.js does not know is shown plain, still labelled.
 */
import createDOMPurify from 'dompurify';
import type { HLJSApi } from 'highlight.js';
import { h } from './dom';
import { copyButton } from './views/copy-button';

let highlighter: Promise<HLJSApi> | null = null;

/** highlight.js with its common languages (about 40), loaded once, on first use. */
export function loadHighlighter(): Promise<HLJSApi> {
  highlighter ??= import('highlight.js/lib/common').then((m) => m.default);
  return highlighter;
}

/** The fence's language from `<code class="language-x">`, or '' when none was given. */
export function codeLanguage(code: Element): string {
  const cls = [...code.classList].find((c) => c.startsWith('language-'));
  return cls ? cls.slice('language-'.length) : '';
}

/**
 * Wraps each `pre > code` in `root` (not yet wrapped) with its header; with `highlight`, highlights
 * them (asynchronously: resolves when done).
 */
export async function enhanceCodeBlocks(root: Element, highlight: boolean): Promise<void> {
  const blocks = [...root.querySelectorAll('pre > code')] as HTMLElement[];
  for (const code of blocks) {
    const pre = code.parentElement!;
    if (pre.parentElement?.classList.contains('code-block')) continue;
    const lang = codeLanguage(code);
    const wrapper = h('div', { class: 'code-block', 'data-lang': lang || 'text' });
    pre.tabIndex = 0; // long lines scroll sideways: keyboard users scroll them too
    pre.replaceWith(wrapper);
    wrapper.append(h('div', { class: 'code-head' }, h('span', { class: 'code-lang' }, lang || 'text'), copyButton(() => code.textContent ?? '', `the ${lang || 'text'} code`, 'copy-code')), pre);
  }
  if (!highlight || blocks.length === 0) return;
  const hljs = await loadHighlighter();
  for (const code of blocks) {
    if (code.dataset.highlighted === 'true' || !code.isConnected) continue;
    const lang = codeLanguage(code);
    if (!lang || !hljs.getLanguage(lang)) continue;
    const text = code.textContent ?? '';
    const html = hljs.highlight(text, { language: lang, ignoreIllegals: true }).value;
    code.innerHTML = purifier().sanitize(html, { ALLOWED_TAGS: ['span'], ALLOWED_ATTR: ['class'] });
    if (code.textContent !== text) code.textContent = text; // never show other text than the model's
    code.classList.add('hljs');
    code.dataset.highlighted = 'true';
  }
}

let purify: ReturnType<typeof createDOMPurify> | null = null;
function purifier(): ReturnType<typeof createDOMPurify> {
  if (purify) return purify;
  purify = createDOMPurify(window);
  purify.addHook('uponSanitizeAttribute', (_node, data) => {
    if (data.attrName === 'class' && !/^(hljs-[\w-]+\s*)+$/.test(data.attrValue)) data.keepAttr = false;
  });
  return purify;
}
