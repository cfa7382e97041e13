/**
 * What runAgent streams: a discriminated union of events (as the Vercel AI SDK's stream parts).
 * Every run ends with exactly one `finish`; an `error` event comes right before it when it ends badly.
 */
import type { GenerateStats, SerializedError, StopReason } from '../engine/contract';
import type { Message, ToolCall } from '../format/types';
import type { DroppedRange } from './context-policy';

export type FinishReason =
  | 'done' // a plain answer ended with <|eot_id|>
  | 'max_steps' // calls were still being made when maxSteps ran out
  | 'length' // a step hit its token limit
  | 'aborted' // the caller's AbortSignal
  | 'time_budget' // the loop's total time ran out
  | 'no_progress' // <|eom_id|> with nothing callable, twice in a row
  | 'repetition' // a step kept repeating one block of tokens and was stopped (agent/repetition-guard.ts)
  | 'unreadable_call' // the model wrote a call the app could not read: nothing of that step ran
  | 'app_failure' // the app could not run a call (tools/app-failure.ts); the model was not told
  | 'error'; // see the preceding `error` event

export type AgentEvent =
  | { type: 'step-start'; step: number; promptTokens: number }
  | {
      type: 'text-delta';
      step: number;
      text: string;
      /** `prose` before the model's python tag (shown as the answer as it streams), `call` after it. */
      part: 'prose' | 'call';
    }
  | { type: 'tool-call'; step: number; callId: string; call: ToolCall }
  | { type: 'confirmation-request'; step: number; callId: string; call: ToolCall }
  /**
   * `source`: who answered, when not the service the tool is named after (e.g. "local math");
   * `failure`: the call did not run and the turn ends here (its `content` is what the transcript keeps).
   */
  | { type: 'tool-result'; step: number; callId: string; name: string; content: string; isError: boolean; durationMs: number; source?: string; failure?: CallFailure }
  | {
      type: 'step-finish';
      step: number;
      /** What the model emitted this step (no terminator): its text (the tag by name) and ids. */
      raw: string;
      ids: number[];
      /** The step parsed once, from its ids: what the user should see and the calls it made. */
      content: string;
      toolCalls: ToolCall[];
      stop: StopReason;
      /** The stop id that fired (null for length or abort). */
      stopId: number | null;
      stats: GenerateStats;
      /** The exact prompt of this step: ids and text (special tokens by name, decoded when read). */
      prompt: { ids: number[]; readonly text: string };
    }
  /**
   * Before step `step`, earlier messages left the model's context to make room (the context policy):
   * `messages` are those that left now, `dropped` all that are out (indices into the run's messages).
   */
  | { type: 'context-dropped'; step: number; dropped: DroppedRange; messages: Message[]; tokensBefore: number; tokensAfter: number }
  /**
   * `contextTokens`: the context's length after the run (what the KV cache holds), null when it could
   * not be built; `messages` are all of them, `dropped` those out of the context.
   */
  | { type: 'finish'; reason: FinishReason; text: string; messages: Message[]; steps: number; contextTokens: number | null; dropped: DroppedRange }
  | { type: 'error'; error: SerializedError };

/**
 * Why a call did not run, for the user (the model never reads `message`): the app could not read it,
 * the app failed running it, or another call of its message did not run.
 */
export interface CallFailure {
  kind: 'unreadable_call' | 'app_failure' | 'not_run';
  message: string;
}

/** A call's id within one run: `${step}.${index}`, the step that made it and its place among that step's calls. */
export function callId(step: number, index: number): string {
  return `${step}.${index}`;
}
