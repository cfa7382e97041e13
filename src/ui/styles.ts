/**
 * Installs the UI's styles into a document (the chat page) or a shadow root (the widget). The CSS
 * ships as strings inside the bundle, so the widget is one module and its styles never touch the
 * host's document.
 *
 * Invariant: no `<style>` element where constructable stylesheets exist. A host page whose
 * Content-Security-Policy has no 'unsafe-inline' in style-src refuses inline `<style>` (also inside
 * a shadow root), but not a stylesheet built with `new CSSStyleSheet()` and adopted; the element is
 * only the fallback for browsers without `adoptedStyleSheets`.
 */
import chatCss from './chat.css?inline';
import pageCss from './page.css?inline';

export function installStyles(target: Document | ShadowRoot, extraCss = ''): void {
  const css = target instanceof Document ? `${chatCss}\n${pageCss}\n${extraCss}` : `${chatCss}\n${extraCss}`;
  if ('adoptedStyleSheets' in target && typeof CSSStyleSheet.prototype.replaceSync === 'function') {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    target.adoptedStyleSheets = [...target.adoptedStyleSheets, sheet];
    return;
  }
  const style = document.createElement('style');
  style.textContent = css;
  (target instanceof Document ? target.head : (target as ShadowRoot)).append(style);
}
