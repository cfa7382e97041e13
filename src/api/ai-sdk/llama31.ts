/**
 * A Vercel AI SDK language model (LanguageModelV3, the interface `ai` 7 calls) over this project's
 * engine: `generateText({ model: llama31(engine), tools, stopWhen })` and `streamText` run their
 * multi-step tool loops on Llama 3.1's exact format. The AI SDK runs the tools; each step is one chat
 * turn (src/api/chat-turn.ts): tool-call parts are Llama's calls, tool-result parts its ipython turns
 * in call order, and replies sent back as they were returned replay as emitted, so every step after
 * the first prefills only what the step appended (`usage.inputTokens.cacheRead`).
 *
 * Invariants: a call is checked and rendered before doGenerate / doStream resolve (a bad one rejects
 * and nothing is generated); cancelling the stream or the abort signal stops the generation.
 */
import {
  InvalidArgumentError,
  InvalidPromptError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3Content,
  type LanguageModelV3FinishReason,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3StreamPart,
  type LanguageModelV3StreamResult,
  type LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { isAbortError } from '../../engine/errors';
import { turnDeps, type ApiEngine, type SurfaceOptions } from '../api-engine';
import { ApiError } from '../api-error';
import { prepareChatTurn, runPreparedTurn, type ChatTurnDeps, type PreparedTurn } from '../chat-turn';
import type { ChatTurnResult } from '../chat-types';
import { TranscriptMemory } from '../transcript-memory';
import { PROVIDER_KEY, toTurnRequest } from './call-options';

export interface Llama31Settings extends SurfaceOptions {
  /** Shared with another surface over the same engine (default: its own). */
  memory?: TranscriptMemory;
  /** Told of every finished step: its exact prompt, the transcript entry, the engine's stop. */
  onTurn?: (turn: ChatTurnResult) => void;
}

export function llama31(engine: ApiEngine, settings: Llama31Settings = {}): LanguageModelV3 {
  const memory = settings.memory ?? new TranscriptMemory();

  /** Checks and renders the call; AI SDK errors for what the caller must fix. */
  const prepare = (options: LanguageModelV3CallOptions): { deps: ChatTurnDeps; turn: PreparedTurn; modelId: string } => {
    try {
      const { model, deps } = turnDeps(engine, settings, memory);
      return { deps, turn: prepareChatTurn(deps, toTurnRequest(options)), modelId: model.modelId };
    } catch (e) {
      throw sdkError(e, options);
    }
  };

  return {
    specificationVersion: 'v3',
    provider: PROVIDER_KEY,
    get modelId() {
      return engine.model?.modelId ?? 'none';
    },
    supportedUrls: {},

    async doGenerate(options): Promise<LanguageModelV3GenerateResult> {
      const { deps, turn, modelId } = prepare(options);
      const result = await runPreparedTurn(deps, turn, { signal: options.abortSignal }).catch((e: unknown) => {
        throw sdkError(e, options);
      });
      settings.onTurn?.(result);
      const content: LanguageModelV3Content[] = result.content !== '' ? [{ type: 'text', text: result.content }] : [];
      for (const call of result.toolCalls) content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.arguments });
      return {
        content,
        finishReason: finishReason(result),
        usage: usage(result),
        warnings: [],
        request: { body: { prompt: result.prompt.text } },
        response: { modelId, timestamp: new Date() },
        providerMetadata: { [PROVIDER_KEY]: { stop: result.stop } },
      };
    },

    async doStream(options): Promise<LanguageModelV3StreamResult> {
      const { deps, turn, modelId } = prepare(options);
      const abort = new AbortController();
      const signal = options.abortSignal ? AbortSignal.any([options.abortSignal, abort.signal]) : abort.signal;
      let cancelled = false;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        start(controller) {
          // After a cancel the stream takes nothing more (enqueue would throw inside the engine's callback).
          const push = (part: LanguageModelV3StreamPart) => cancelled || controller.enqueue(part);
          push({ type: 'stream-start', warnings: [] });
          push({ type: 'response-metadata', modelId, timestamp: new Date() });
          let textOpen = false;
          const onContent = (delta: string) => {
            if (!textOpen) push({ type: 'text-start', id: 'text-0' });
            textOpen = true;
            push({ type: 'text-delta', id: 'text-0', delta });
          };
          runPreparedTurn(deps, turn, { signal, onContent }).then(
            (result) => {
              settings.onTurn?.(result);
              if (textOpen) push({ type: 'text-end', id: 'text-0' });
              for (const call of result.toolCalls) {
                push({ type: 'tool-input-start', id: call.id, toolName: call.name });
                push({ type: 'tool-input-delta', id: call.id, delta: call.arguments });
                push({ type: 'tool-input-end', id: call.id });
                push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.arguments });
              }
              push({ type: 'finish', finishReason: finishReason(result), usage: usage(result), providerMetadata: { [PROVIDER_KEY]: { stop: result.stop } } });
              if (!cancelled) controller.close();
            },
            (e: unknown) => {
              if (cancelled) return;
              if (isAbortError(e)) return controller.error(e);
              push({ type: 'error', error: sdkError(e, options) });
              controller.close();
            },
          );
        },
        cancel() {
          cancelled = true;
          abort.abort();
        },
      });
      return { stream, request: { body: { prompt: turn.transcript.text(turn.ids) } } };
    },
  };
}

function finishReason(result: ChatTurnResult): LanguageModelV3FinishReason {
  return { unified: result.finish === 'tool_calls' ? 'tool-calls' : result.finish, raw: result.stop };
}

function usage({ usage: u }: ChatTurnResult): LanguageModelV3Usage {
  const cached = u.cachedTokens;
  return {
    inputTokens: { total: u.promptTokens, noCache: cached === null ? undefined : u.promptTokens - cached, cacheRead: cached ?? undefined, cacheWrite: undefined },
    outputTokens: { total: u.completionTokens, text: u.completionTokens, reasoning: undefined },
  };
}

/** A request error → the AI SDK's error for it (the prompt or an argument); anything else as it is. */
function sdkError(e: unknown, options: LanguageModelV3CallOptions): unknown {
  if (!(e instanceof ApiError) || e.status !== 400) return e;
  if (e.param === 'messages' || e.param?.startsWith('prompt')) return new InvalidPromptError({ prompt: options.prompt, message: e.message, cause: e });
  return new InvalidArgumentError({ argument: e.param ?? 'options', message: e.message, cause: e });
}
