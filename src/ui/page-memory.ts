/**
 * What the chat page remembers across reloads besides its settings and conversations: the model it
 * last loaded (auto-loaded again when its files need no download) and the conversation last open.
 * localStorage; without it (denied, private mode) nothing is remembered and nothing throws.
 */
export interface Remembered {
  get(): string | null;
  set(value: string | null): void;
}

export function remembered(key: string, storage: Storage | null = safeLocalStorage()): Remembered {
  return {
    get() {
      try {
        return storage?.getItem(key) ?? null;
      } catch {
        return null;
      }
    },
    set(value) {
      try {
        if (value === null) storage?.removeItem(key);
        else storage?.setItem(key, value);
      } catch {
        // full or denied: forgotten on reload
      }
    },
  };
}

export const LAST_MODEL_KEY = 'llama-agent:last-model';
export const LAST_CONVERSATION_KEY = 'llama-agent:last-conversation';

export function safeLocalStorage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}
