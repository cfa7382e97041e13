/**
 * What the surfaces generated, keyed by exactly what they returned (the content and the calls with
 * their ids, names and arguments), so an assistant message the app sends back unchanged is replayed
 * as the model emitted it — its ids (its text, when a stop string cut it), terminator and parsed calls — and its prompt extends the
 * one the engine's KV cache already holds. An app that edits a message misses and gets the structured
 * rendering (shared/FORMAT.md), which is correct but re-prefills from the edit on.
 *
 * Arguments are compared as JSON values (an SDK that parsed them and wrote them again without our
 * spacing still matches). A call whose attempt could not be read has no arguments to compare: its
 * text is the model's, and an SDK may send it back as anything (ai 7 sends `{}`).
 *
 * Each message is remembered with the date its conversation's system block shows, so a conversation
 * continued after midnight keeps its prompt (and the engine's cached prefix).
 *
 * Invariant: a recalled message is a copy of what was remembered for the same content and calls; the
 * memory holds at most `capacity` entries, forgetting the least recently used first.
 */
import type { Message } from '../format/types';
import type { ApiToolCall } from './chat-types';

export const DEFAULT_MEMORY_CAPACITY = 512;

export interface Remembered {
  message: Message;
  /** The system block's date when the message was emitted (absent: the prompt had no system block date). */
  date?: string;
}

interface Entry extends Remembered {
  /** Per call, its canonical arguments, or null for an unreadable call. */
  args: Array<string | null>;
}

export class TranscriptMemory {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly capacity = DEFAULT_MEMORY_CAPACITY) {}

  remember(content: string, calls: readonly ApiToolCall[], message: Message, date?: string): void {
    const key = memoryKey(content, calls);
    this.entries.delete(key);
    this.entries.set(key, { message: structuredClone(message), ...(date !== undefined ? { date } : {}), args: calls.map((c) => (c.unreadable ? null : canonicalArguments(c.arguments))) });
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  /** The assistant message emitted under this content and these calls, or undefined. */
  recall(content: string, calls: readonly ApiToolCall[]): Message | undefined {
    return this.recallEntry(content, calls)?.message;
  }

  /** The message emitted under this content and these calls, with its conversation's date; or undefined. */
  recallEntry(content: string, calls: readonly ApiToolCall[]): Remembered | undefined {
    const key = memoryKey(content, calls);
    const found = this.entries.get(key);
    if (!found || !found.args.every((a, i) => a === null || a === canonicalArguments(calls[i]!.arguments))) return undefined;
    this.entries.delete(key);
    this.entries.set(key, found);
    return { message: structuredClone(found.message), ...(found.date !== undefined ? { date: found.date } : {}) };
  }

  get size(): number {
    return this.entries.size;
  }
}

function memoryKey(content: string, calls: readonly ApiToolCall[]): string {
  return JSON.stringify([content, calls.map((c) => [c.id, c.name])]);
}

export function canonicalArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}
