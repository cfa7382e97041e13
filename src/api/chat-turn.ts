/**
 * One chat turn, shared by every standard surface: the app's messages become the transcript (the
 * model's own messages replayed as emitted), the prompt is rendered exactly as runAgent renders it
 * (src/format/render.ts), the engine generates once, the reply is parsed once from its pieces and
 * remembered under what the app is given back.
 *
 * Invariants: the prompt for the same conversation and tools is byte-identical to runAgent's; the
 * engine's longest-common-prefix cache therefore prefills only what the app appended since its last
 * turn (reported as `usage.cachedTokens`); the app never executes a call the transcript does not hold,
 * and the transcript never holds a call the app was not given.
 */
import type { EngineLike, SamplingParams } from '../engine/contract';
import { isAbortError } from '../engine/errors';
import { BUILTIN_TOOL_NAMES } from '../format/builtin-tools';
import { parsePieces } from '../format/parse';
import { renderSegments, segmentsToIds, segmentsToText } from '../format/render';
import { PYTHON_TAG_TEXT } from '../format/special-tokens';
import type { Conversation, Message, Segment, TextTokenizer, ToolCall } from '../format/types';
import { toApiError } from './api-error';
import type { ChatTurnRequest, ChatTurnResult, TurnFinish } from './chat-types';
import { ContentStream } from './content-stream';
import { checkRoom } from './context-room';
import { generatePieces, type Emitted } from './generate-pieces';
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
  /** The system block's date when tools are on (default: today, at each request, as runAgent does per run). */
  date?: string | Date;
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
  segments: Segment[];
  ids: number[];
}

/**
 * Checks and renders a turn (synchronously, so a stream can still answer with an error status).
 * Throws ApiError: a bad transcript, a choice the tools cannot satisfy, a prompt that leaves no room.
 */
export function prepareChatTurn(deps: ChatTurnDeps, request: ChatTurnRequest): PreparedTurn {
  try {
    const plan = planReplyFormat(planToolChoice(request, deps.tokenizer), request);
    const segments = renderSegments(conversationOf(deps, request));
    const ids = segmentsToIds(segments, deps.tokenizer);
    checkRoom(ids.length, request.maxTokens, deps.contextWindow);
    return { request, plan, segments, ids };
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
    const emitted = await generatePieces(
      deps.engine,
      deps.tokenizer,
      {
        tokens: ids,
        sampling: { ...deps.modelSampling, ...request.sampling },
        maxTokens: request.maxTokens,
        logitsProcessors: plan.logitsProcessors,
        ...(plan.constraint ? { constraint: plan.constraint } : {}),
        ...(request.cacheSalt ? { cacheSalt: request.cacheSalt } : {}),
        ...(request.logprobs !== undefined ? { logprobs: request.logprobs } : {}),
      },
      request.stop,
      handlers.signal,
      (pieces) => (start(), send(stream.update(pieces))),
    );
    start();
    const reply = readReply(emitted, plan.readCalls);
    if (reply.finish === 'stop' && emitted.stoppedBy === null) checkReply(reply.content, request.replyFormat);
    checkCallArguments(reply.calls, request.tools);
    const toolCalls = replyCalls(reply.calls, deps.newId ?? newCallId);
    deps.memory.remember(reply.content, toolCalls, reply.message);
    send(stream.finish(reply.content));
    const { stats } = emitted.result;
    return {
      content: reply.content,
      toolCalls,
      finish: reply.finish,
      stop: emitted.result.stop,
      usage: { promptTokens: stats.promptTokens, completionTokens: stats.decodedTokens, cachedTokens: stats.reusedTokens },
      message: reply.message,
      ...(emitted.result.logprobs ? { logprobs: emitted.result.logprobs } : {}),
      prompt: { ids, text: segmentsToText(turn.segments) },
    };
  } catch (e) {
    if (isAbortError(e)) throw e;
    throw toApiError(e);
  }
}

export function runChatTurn(deps: ChatTurnDeps, request: ChatTurnRequest, handlers: TurnHandlers = {}): Promise<ChatTurnResult> {
  return runPreparedTurn(deps, prepareChatTurn(deps, request), handlers);
}

/** The conversation runAgent would render: tool options from the offered tools, the date pinned when any is on. */
function conversationOf(deps: ChatTurnDeps, request: ChatTurnRequest): Conversation {
  const builtinTools = BUILTIN_TOOL_NAMES.filter((n) => request.builtinTools.includes(n));
  const offered = builtinTools.length + request.tools.length > 0;
  const date = deps.date ?? (offered ? new Date() : undefined);
  return {
    messages: toTranscript(request.messages, deps.memory),
    builtinTools: [...builtinTools],
    tools: request.tools,
    ...(date !== undefined ? { date } : {}),
    ...(deps.knowledgeCutoff !== undefined ? { knowledgeCutoff: deps.knowledgeCutoff } : {}),
  };
}

/**
 * The reply, read once. As in runAgent: a reply cut short (length, end_of_text, a stop string) keeps
 * its text as a finished turn (eot) and makes no call. An eom that made no call is kept as eot: the
 * app was given no call to answer, so the transcript waits for none.
 */
function readReply(emitted: Emitted, readCalls: boolean): { content: string; calls: ToolCall[]; finish: TurnFinish; message: Message } {
  const { result, pieces } = emitted;
  const raw = pieces.join(PYTHON_TAG_TEXT);
  const finished = (result.stop === 'eom' || result.stop === 'eot') && emitted.stoppedBy === null;
  const parsed = readCalls ? parsePieces(pieces, finished ? (result.stop as 'eom' | 'eot') : 'eot') : { content: raw, toolCalls: [] };
  const calls = finished ? parsed.toolCalls : [];
  const stop = calls.length > 0 ? (result.stop as 'eom' | 'eot') : 'eot';
  const message: Message = { role: 'assistant', content: parsed.content, raw, ...(emitted.ids ? { ids: emitted.ids } : {}), stop, toolCalls: calls };
  const finish: TurnFinish = calls.length > 0 ? 'tool_calls' : result.stop === 'length' ? 'length' : 'stop';
  return { content: parsed.content, calls, finish, message };
}
