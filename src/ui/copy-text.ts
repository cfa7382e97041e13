/**
 * Copies text to the clipboard: the async Clipboard API where the page may use it, else the old
 * select-and-copy through a temporary textarea (an embedding page served over plain http has no
 * navigator.clipboard). Resolves to whether it worked.
 */
export async function copyText(text: string, within: Node = document.body): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // denied: try the fallback
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  (within instanceof ShadowRoot || within instanceof Element ? within : document.body).append(area);
  area.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  } finally {
    area.remove();
  }
}
