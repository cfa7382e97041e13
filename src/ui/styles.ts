/**
 * Installs the UI's styles into a document (the chat page) or a shadow root (the widget). The CSS
 * ships as strings inside the bundle, so the widget is one module and its styles never touch the
 * host's document.
 */
import chatCss from './chat.css?inline';
import pageCss from './page.css?inline';

export function installStyles(target: Document | ShadowRoot, extraCss = ''): void {
  const style = document.createElement('style');
  style.textContent = target instanceof Document ? `${chatCss}\n${pageCss}\n${extraCss}` : `${chatCss}\n${extraCss}`;
  (target instanceof Document ? target.head : target).append(style);
}
