/**
 * Parsed calls (src/format/parse.ts) → the calls an app sees, one each, in the order the model made
 * them, each with a fresh id. Names are Llama's: a custom tool's own name, `brave_search` /
 * `wolfram_alpha` with {"query"}, `code_interpreter` with {"code"}. A call the model attempted but
 * that could not be read keeps its place (the transcript waits for one result per call): its name is
 * what could be read of it and its arguments are the text the model wrote, which is not JSON.
 */
import type { ToolCall } from '../format/types';
import type { ApiToolCall } from './chat-types';

export function replyCalls(calls: readonly ToolCall[], newId: () => string): ApiToolCall[] {
  return calls.map((call) =>
    call.kind === 'invalid'
      ? { id: newId(), name: call.name, arguments: call.arguments.text, unreadable: true }
      : { id: newId(), name: call.name, arguments: JSON.stringify(call.arguments) },
  );
}

/** `call_` and 24 random hex digits: unique enough to key the transcript memory. */
export function newCallId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `call_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
