/**
 * One chat turn, shared by every standard surface: the app's messages become the transcript (the
 * model's own messages replayed as emitted; format/transcript.ts, rendered once per request), the
 * engine generates one step as runAgent's steps do (agent/run-step.ts), and the reply, read once, is
 * remembered under what the app is given back, with its conversation's date.
 *
 * Invariants: the prompt for the same conversation and tools is byte-identical to runAgent's; the
 * engine's longest-common-prefix cache therefore prefills only what the app appended since its last
 * turn (reported as `usage.cachedTokens`); the app never executes a call the transcript does not hold,
 * and the transcript never holds a call the app was not given.
 */
import type { EngineLike, SamplingParams } from '../engine/contract';
import { ContextTranscript, contextFit } from '../agent/context-transcript';
import { runStep, type Step } from '../agent/run-step';
import { DEFAULT_MAX_TOKENS_PER_STEP, stepTokenCap } from '../agent/step-cap';
import { abortError, isAbortError } from '../engine/errors';
import { BUILTIN_TOOL_NAMES } from '../format/builtin-tools';
import { conversationSystemOptions, isoDate } from '../format/system-options';
import { Transcript } from '../format/transcript';
import type { Message, TextTokenizer, ToolCall } from '../format/types';
import { toApiError } from './api-error';
import type { ChatTurnRequest, ChatTurnResult, TurnFinish } from './chat-types';
import { ContentStream } from './content-stream';
import { checkRoom } from './context-room';
import { newCallId, replyCalls } from './reply-calls';
import { toTranscript } from './to-transcript';
import { checkCallArguments, checkReply, planReplyFormat } from './response-format';
import { planToolChoice, type ToolChoicePlan } from './tool-choice';
import type { TranscriptMemory } from './transcript-memory';

export interface ChatTurnDeps {
  engine: EngineLike;
  tokenizer: TextTokenizer;
  memory: TranscriptMemory;
  /** What the loaded model needs over Llama's defaults (the micro model is greedy); the request's settings win. */
  modelSampling?: SamplingParams;
  /**
   * The system block's date when tools are on. Default: the date of the conversation's remembered
   * replies (a conversation keeps its date), else today's by `today`.
   */
  date?: string | Date;
  /** The clock a new conversation's date is read from (default: the system clock). */
  today?: () => Date;
  knowledgeCutoff?: string;
  /** The loaded model's context window: a prompt that leaves no room is refused before generating. */
  contextWindow?: number;
  newId?: () => string;
}

export interface TurnHandlers {
  signal?: AbortSignal;
  /** Visible content as it is generated; the deltas concatenate to the result's `content`. */
  onContent?: (delta: string) => void;
  /**
   * Called once the engine has accepted the request (its first ids, or its end), before any content:
   * a request it refuses before generating (a constraint that does not compile) rejects without it.
   */
  onStart?: () => void;
}

/** A turn checked and rendered, not yet generated: every request error has been raised by now. */
export interface PreparedTurn {
  request: ChatTurnRequest;
  plan: ToolChoicePlan;
  transcript: Transcript;
  ids: number[];
}

/**
 * Checks and renders a turn (synchronously, so a stream can still answer with an error status).
 * Throws ApiError: a bad transcript, a choice the tools cannot satisfy, a prompt that leaves no room
 * (with a context policy: after it dropped what it may).
 */
export function prepareChatTurn(deps: ChatTurnDeps, request: ChatTurnRequest): PreparedTurn {
  try {
    const plan = planReplyFormat(planToolChoice(request, deps.tokenizer), request);
    const transcript = fitted(deps, request, transcriptOf(deps, request));
    const ids = transcript.prompt();
    checkRoom(ids.length, request.maxTokens, deps.contextWindow);
    return { request, plan, transcript, ids };
  } catch (e) {
    throw toApiError(e);
  }
}

/** Generates and reads a prepared turn. Throws ApiError, or an AbortError when `signal` aborts. */
export async function runPreparedTurn(deps: ChatTurnDeps, turn: PreparedTurn, handlers: TurnHandlers = {}): Promise<ChatTurnResult> {
  const { request, plan, ids } = turn;
  try {
    const stream = new ContentStream(plan.readCalls, request.stop);
    let started = false;
    const start = () => {
      if (!started) (started = true), handlers.onStart?.();
    };
    const send = (delta: string) => delta !== '' && handlers.onContent?.(delta);
    const step = await runStep({
      engine: deps.engine,
      tokenizer: deps.tokenizer,
      request: {
        tokens: ids,
        sampling: { ...deps.modelSampling, ...request.sampling },
        maxTokens: request.maxTokens,
        logitsProcessors: plan.logitsProcessors,
        ...(plan.constraint ? { constraint: plan.constraint } : {}),
        ...(request.cacheSalt ? { cacheSalt: request.cacheSalt } : {}),
        ...(request.logprobs !== undefined ? { logprobs: request.logprobs } : {}),
      },
      readCalls: plan.readCalls,
      stops: request.stop,
      ...(handlers.signal ? { signal: handlers.signal } : {}),
      onText: (pieces) => (start(), send(stream.update(pieces))),
    });
    if (handlers.signal?.aborted) throw abortError('the request was aborted');
    start();
    const reply = readReply(step);
    if (reply.finish === 'stop' && step.stoppedBy === null) checkReply(reply.content, request.replyFormat);
    checkCallArguments(reply.calls, request.tools);
    const toolCalls = replyCalls(reply.calls, deps.newId ?? newCallId);
    const date = turn.transcript.options.date;
    deps.memory.remember(reply.content, toolCalls, reply.message, date instanceof Date ? isoDate(date) : date);
    send(stream.finish(reply.content));
    const { stats } = step.result;
    const transcript = turn.transcript;
    let text: string | undefined;
    return {
      content: reply.content,
      toolCalls,
      finish: reply.finish,
      stop: step.result.stop,
      usage: { promptTokens: stats.promptTokens, completionTokens: stats.decodedTokens, cachedTokens: stats.reusedTokens },
      message: reply.message,
      ...(step.result.logprobs ? { logprobs: step.result.logprobs } : {}),
      prompt: {
        ids,
        get text() {
          return (text ??= transcript.text(ids));
        },
      },
    };
  } catch (e) {
    if (isAbortError(e)) throw e;
    throw toApiError(e);
  }
}

export function runChatTurn(deps: ChatTurnDeps, request: ChatTurnRequest, handlers: TurnHandlers = {}): Promise<ChatTurnResult> {
  return runPreparedTurn(deps, prepareChatTurn(deps, request), handlers);
}

/**
 * The transcript runAgent would hold: tool options from the offered tools, the date the conversation
 * already has (given, or its remembered replies'), else today's.
 */
function transcriptOf(deps: ChatTurnDeps, request: ChatTurnRequest): Transcript {
  const { messages, date } = toTranscript(request.messages, deps.memory);
  const builtinTools = BUILTIN_TOOL_NAMES.filter((n) => request.builtinTools.includes(n));
  const given = {
    ...(deps.date !== undefined || date !== undefined ? { date: deps.date ?? date } : {}),
    ...(deps.knowledgeCutoff !== undefined ? { knowledgeCutoff: deps.knowledgeCutoff } : {}),
  };
  const options = conversationSystemOptions(given, { builtinTools: [...builtinTools], tools: request.tools }, deps.today);
  return new Transcript(deps.tokenizer, options, messages);
}

/**
 * What the model sees of the request's transcript: all of it, or with `contextPolicy` and a known
 * window, what the policy keeps for a step of `maxTokens` (default as the agent loop's: a quarter of
 * the window, at most 1024). Throws EngineError `context_overflow` when the policy cannot make room.
 */
function fitted(deps: ChatTurnDeps, request: ChatTurnRequest, full: Transcript): Transcript {
  if (request.contextPolicy === undefined || deps.contextWindow === undefined) return full;
  const maxTokens = request.maxTokens ?? stepTokenCap(DEFAULT_MAX_TOKENS_PER_STEP, deps.contextWindow);
  const seen = new ContextTranscript(full, contextFit(full, deps.contextWindow, maxTokens, request.contextPolicy), deps.tokenizer);
  seen.fit();
  return seen.seen;
}

/**
 * The reply, read once (run-step.ts). An eom that made no call is kept as eot: the app was given no
 * call to answer, so the transcript waits for none.
 */
function readReply(step: Step): { content: string; calls: ToolCall[]; finish: TurnFinish; message: Message } {
  const { result } = step;
  const calls = step.toolCalls;
  const stop = calls.length > 0 ? (result.stop as 'eom' | 'eot') : 'eot';
  // The emitted ids are the message; a reply cut by a stop string has only its text.
  const message: Message = { role: 'assistant', content: step.content, ...(step.ids ? { ids: step.ids } : { raw: step.raw }), stop, toolCalls: calls };
  const finish: TurnFinish = calls.length > 0 ? 'tool_calls' : result.stop === 'length' ? 'length' : 'stop';
  return { content: step.content, calls, finish, message };
}
