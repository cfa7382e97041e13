/**
 * OpenAI's chat completions in the page: `createChatCompletions(engine).chat.completions.create(request)`
 * answers in OpenAI's response shapes — a ChatCompletion, or with `stream: true` an async iterable of
 * chunks — over this project's engine, prompt format and parser. The app runs the tools: calls come
 * back as `tool_calls`, results go in as `role: "tool"` messages.
 *
 * Invariants: a request is checked and rendered before `create` resolves (a bad one rejects with an
 * ApiError naming the field, and nothing is generated); a stream's consumer that stops early aborts
 * the generation; replies the app sends back unchanged are replayed as the model emitted them, so
 * each request prefills only what was appended (`usage.prompt_tokens_details.cached_tokens`).
 */
import type { ChatTurnResult } from '../chat-types';
import { abortableStream } from '../abortable-stream';
import { checkModel, turnDeps, type ApiEngine, type SurfaceOptions } from '../api-engine';
import { prepareChatTurn, runPreparedTurn } from '../chat-turn';
import { TranscriptMemory } from '../transcript-memory';
import { readChatRequest } from './chat-request';
import { chatCompletion, chunk, closingChunks, responseIdentity, usageOfChoices } from './chat-response';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionCreateParams } from './wire-types';

export interface ChatCompletionsOptions extends SurfaceOptions {
  /** Shared with another surface over the same engine, so each replays the other's replies (default: its own). */
  memory?: TranscriptMemory;
  /** Told of every finished turn: its exact prompt, the transcript entry, the engine's stop (inspectors, tests). */
  onTurn?: (turn: ChatTurnResult) => void;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface ChatCompletions {
  chat: {
    completions: {
      create(request: ChatCompletionCreateParams & { stream?: false | null }, options?: RequestOptions): Promise<ChatCompletion>;
      create(request: ChatCompletionCreateParams & { stream: true }, options?: RequestOptions): Promise<AsyncIterable<ChatCompletionChunk>>;
      create(request: ChatCompletionCreateParams, options?: RequestOptions): Promise<ChatCompletion | AsyncIterable<ChatCompletionChunk>>;
    };
  };
}

export function createChatCompletions(engine: ApiEngine, options: ChatCompletionsOptions = {}): ChatCompletions {
  const memory = options.memory ?? new TranscriptMemory();

  async function create(body: ChatCompletionCreateParams, request: RequestOptions = {}): Promise<ChatCompletion | AsyncIterable<ChatCompletionChunk>> {
    const { model, deps } = turnDeps(engine, options, memory);
    const parsed = readChatRequest(body);
    checkModel(parsed.model, model);
    const prepared = prepareChatTurn(deps, parsed.turn);
    const who = responseIdentity(model.modelId, 'chatcmpl');
    // Choice i after the first: the same prompt (read from the KV cache), its own seed when the request set one.
    const choice = (i: number) => {
      const seed = parsed.turn.sampling.seed;
      return i === 0 || seed === undefined ? prepared : { ...prepared, request: { ...prepared.request, sampling: { ...prepared.request.sampling, seed: seed + i } } };
    };
    if (!parsed.stream) {
      const results = [];
      for (let i = 0; i < parsed.choices; i++) {
        const result = await runPreparedTurn(deps, choice(i), { signal: request.signal });
        options.onTurn?.(result);
        results.push(result);
      }
      return chatCompletion(who, results, deps.tokenizer);
    }
    return abortableStream<ChatCompletionChunk>(async (push, signal) => {
      const results = [];
      for (let i = 0; i < parsed.choices; i++) {
        const result = await runPreparedTurn(deps, choice(i), {
          signal,
          onStart: () => push(chunk(who, { role: 'assistant', content: '' }, null, i)),
          onContent: (content) => push(chunk(who, { content }, null, i)),
        });
        options.onTurn?.(result);
        for (const c of closingChunks(who, result, deps.tokenizer, i)) push(c);
        results.push(result);
      }
      if (parsed.includeUsage) push({ ...who, object: 'chat.completion.chunk', choices: [], usage: usageOfChoices(results) });
    }, request.signal);
  }

  return { chat: { completions: { create: create as ChatCompletions['chat']['completions']['create'] } } };
}
