/**
 * Model output → safe HTML. Model output is untrusted (a tool result can steer it): Markdown is
 * rendered by marked, then sanitized by DOMPurify with an allow-list.
 *
 * Invariants: raw HTML in the text is shown as text, never parsed; nothing in the output can run
 * script (no script/style/iframe/form/svg, no `on*` attributes, no `javascript:`/`data:` URLs) or
 * load anything by itself: images are not loaded (a Markdown image becomes a link saying "image"),
 * so an answer cannot beacon data out or make a request. Links are http(s)/mailto only and open in a
 * new tab without a referrer. The only class kept is a code block's `language-x` (code-blocks.ts).
 */
import createDOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';

const ALLOWED_TAGS = [
  'p', 'br', 'hr', 'strong', 'em', 'del', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'span', 'input',
];
const ALLOWED_ATTR = ['href', 'title', 'start', 'align', 'type', 'checked', 'disabled', 'class'];
/** The one class kept: a code block's fence language (code-blocks.ts labels and highlights by it). */
const CODE_LANGUAGE = /^language-[\w+#.-]{1,32}$/;
const SAFE_URL = /^(?:https?:|mailto:)/i;

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    // Raw HTML from the model is text.
    html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
    code: ({ text, lang }: Tokens.Code) => {
      const language = (lang ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
      const cls = CODE_LANGUAGE.test(`language-${language}`) ? ` class="language-${language}"` : '';
      return `<pre><code${cls}>${escapeHtml(text)}</code></pre>\n`;
    },
    image: ({ href, text }: Tokens.Image) =>
      SAFE_URL.test(href) ? `<a href="${escapeHtml(href)}">image: ${escapeHtml(text || href)}</a>` : `image: ${escapeHtml(text)}`,
  },
});

let purifier: ReturnType<typeof createDOMPurify> | null = null;

function purify(): ReturnType<typeof createDOMPurify> {
  if (purifier) return purifier;
  const p = createDOMPurify(window);
  p.addHook('uponSanitizeAttribute', (node, data) => {
    if (data.attrName === 'class' && !(node.tagName === 'CODE' && CODE_LANGUAGE.test(data.attrValue))) data.keepAttr = false;
  });
  p.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      const href = node.getAttribute('href');
      if (href !== null && !SAFE_URL.test(href)) node.removeAttribute('href');
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer nofollow');
      node.setAttribute('referrerpolicy', 'no-referrer');
    }
    // GFM task-list checkboxes are the only inputs: inert.
    if (node.tagName === 'INPUT') {
      if (node.getAttribute('type') !== 'checkbox') node.remove();
      else node.setAttribute('disabled', '');
    }
  });
  purifier = p;
  return p;
}

/** Sanitized HTML for a Markdown string. */
export function markdownToHtml(text: string): string {
  const html = marked.parse(text) as string;
  return purify().sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOWED_URI_REGEXP: SAFE_URL,
    ALLOW_DATA_ATTR: false,
  });
}

/** Renders Markdown into `el` (replacing its content). */
export function renderMarkdown(el: Element, text: string): void {
  el.innerHTML = markdownToHtml(text);
}
