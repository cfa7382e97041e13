/**
 * A loader that runs once per URL: every caller of the same URL shares one promise, so a runtime, tokenizer or
 * binary is fetched and decoded once however many engines or sandboxes ask. A rejected load is forgotten, so the
 * next call tries again (a server that was down, a page that went offline for a moment).
 */
export function oncePerUrl<T>(load: (url: string) => Promise<T>): (url: string) => Promise<T> {
  const loading = new Map<string, Promise<T>>();
  return (url) => {
    let pending = loading.get(url);
    if (!pending) {
      pending = load(url);
      loading.set(url, pending);
      pending.catch(() => loading.delete(url));
    }
    return pending;
  };
}
