/**
 * Model output → safe HTML. Model output is untrusted (a tool result can steer it): Markdown is
 * rendered by marked, then sanitized by DOMPurify with an allow-list.
 *
 * Invariants: raw HTML in the text is shown as text, never parsed; nothing in the output can run
 * script (no script/style/iframe/form/svg, no `on*` attributes, no `javascript:`/`data:` URLs) or
 * load anything by itself: images are neither loaded nor links (a Markdown image is the text
 * "image: ALT (host)"), so an answer cannot beacon data out or make a request. Links are
 * http(s)/mailto only, open in a new tab without a referrer, and show where they go: the
 * destination's host (a mailto's address) stands beside the link text unless the text is the URL
 * itself, so text cannot pose as one URL while pointing to another.
 * The only class kept is a code block's `language-x` (code-blocks.ts).
 */
import createDOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';

const ALLOWED_TAGS = [
  'p', 'br', 'hr', 'strong', 'em', 'del', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'span', 'input', 'small',
];
const ALLOWED_ATTR = ['href', 'title', 'start', 'align', 'type', 'checked', 'disabled', 'class'];
/** The one class kept: a code block's fence language (code-blocks.ts labels and highlights by it). */
const CODE_LANGUAGE = /^language-[\w+#.-]{1,32}$/;
const SAFE_URL = /^(?:https?:|mailto:)/i;

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Where a safe URL goes, as the reader should see it: the host (punycode shows look-alikes), or a mailto's address; null if unsafe. */
export function linkDestination(href: string): string | null {
  if (!SAFE_URL.test(href)) return null;
  if (/^mailto:/i.test(href)) return decodeOr(href.slice('mailto:'.length).split('?')[0] ?? '');
  try {
    return new URL(href).host || null;
  } catch {
    return null;
  }
}

function decodeOr(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const destinationNote = (destination: string) => ` <small>(${escapeHtml(destination)})</small>`;

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    // Raw HTML from the model is text.
    html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
    link(token: Tokens.Link) {
      const text = this.parser.parseInline(token.tokens);
      const destination = linkDestination(token.href);
      if (destination === null) return text;
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : '';
      const plain = token.text === token.href || `mailto:${token.text}` === token.href;
      return `<a href="${escapeHtml(token.href)}"${title}>${text}</a>${plain ? '' : destinationNote(destination)}`;
    },
    image({ href, text }: Tokens.Image) {
      const destination = linkDestination(href);
      return `image: ${escapeHtml(text || 'no description')}${destination === null ? '' : destinationNote(destination)}`;
    },
    code: ({ text, lang }: Tokens.Code) => {
      const language = (lang ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
      const cls = CODE_LANGUAGE.test(`language-${language}`) ? ` class="language-${language}"` : '';
      return `<pre><code${cls}>${escapeHtml(text)}</code></pre>\n`;
    },
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
