/**
 * What the surfaces generated, keyed by exactly what they returned (the content and the calls with
 * their ids and arguments), so an assistant message the app sends back unchanged is replayed as the
 * model emitted it — raw text, ids, terminator and parsed calls — and its prompt extends the one the
 * engine's KV cache already holds. An app that edits a message misses and gets the structured
 * rendering (shared/FORMAT.md), which is correct but re-prefills from the edit on.
 *
 * Invariant: a recalled message is a copy of what was remembered under the same key; the memory holds
 * at most `capacity` entries, forgetting the least recently used first.
 */
import type { Message } from '../format/types';
import type { ApiToolCall } from './chat-types';

export const DEFAULT_MEMORY_CAPACITY = 512;

export class TranscriptMemory {
  private readonly entries = new Map<string, Message>();

  constructor(private readonly capacity = DEFAULT_MEMORY_CAPACITY) {}

  remember(content: string, calls: readonly ApiToolCall[], message: Message): void {
    const key = memoryKey(content, calls);
    this.entries.delete(key);
    this.entries.set(key, copy(message));
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  /** The assistant message emitted under this content and these calls, or undefined. */
  recall(content: string, calls: readonly ApiToolCall[]): Message | undefined {
    const key = memoryKey(content, calls);
    const found = this.entries.get(key);
    if (!found) return undefined;
    this.entries.delete(key);
    this.entries.set(key, found);
    return copy(found);
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * Content and calls as one string. Arguments are compared as JSON values (an SDK that parsed them and
 * wrote them again without our spacing still matches); text that is not JSON is compared as is.
 */
function memoryKey(content: string, calls: readonly ApiToolCall[]): string {
  return JSON.stringify([content, calls.map((c) => [c.id, c.name, canonicalArguments(c.arguments)])]);
}

export function canonicalArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

function copy(message: Message): Message {
  return structuredClone(message);
}
