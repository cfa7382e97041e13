/**
 * OpenAI's legacy text completions (`/v1/completions`) over the engine: a raw prompt in, the model's
 * continuation out, no chat format. The prompt is text or token ids. Text is encoded as plain content
 * after `<|begin_of_text|>` (special-token names in it stay text, as everywhere in this project); ids
 * are sent as given, so a caller that wants structure (headers, eom) writes it as ids.
 *
 * Invariants as for chat: a request is checked before `create` resolves; a stream's consumer that stops
 * early aborts the generation; stop strings end the text before them.
 */
import type { LoadedModelInfo } from '../../engine/contract';
import { abortError, isAbortError } from '../../engine/errors';
import { BEGIN_OF_TEXT, PYTHON_TAG_TEXT, VOCAB_SIZE } from '../../format/special-tokens';
import type { TextTokenizer } from '../../format/types';
import { abortableStream } from '../abortable-stream';
import { checkModel, served, type ApiEngine, type SurfaceOptions } from '../api-engine';
import { invalidField, toApiError } from '../api-error';
import { ContentStream } from '../content-stream';
import { checkRoom } from '../context-room';
import { generatePieces, type Emitted } from '../../agent/generate-pieces';
import { responseIdentity, usageOf, type ResponseIdentity } from './chat-response';
import { defaultOnly, objectAt, onlyKnown, optionalBoolean, present, requiredString, type JsonObject } from './fields';
import { GENERATION_FIELDS, readGenerationFields, type GenerationFields } from './generation-fields';
import type { CompletionUsage } from './wire-types';
import type { RequestOptions } from './create-chat-completions';

/** OpenAI's default for this endpoint. */
export const DEFAULT_COMPLETION_TOKENS = 16;

export interface TextCompletion {
  id: string;
  object: 'text_completion';
  created: number;
  model: string;
  choices: TextChoice[];
  usage?: CompletionUsage | null;
}

export interface TextChoice {
  index: 0;
  text: string;
  logprobs: null;
  finish_reason: 'stop' | 'length' | null;
  /** With `return_token_ids` (vLLM's): the ids of this text, the stop id that ended it included. */
  token_ids?: number[];
  /** With `return_token_ids`: the prompt as ids (the first chunk of a stream). */
  prompt_token_ids?: number[];
  /** vLLM's: the stop id that ended the generation, when one did (null otherwise). */
  stop_reason?: number | null;
}

export interface TextCompletionParams {
  model: string;
  prompt: string | number[];
  max_tokens?: number | null;
  stream?: boolean | null;
  [field: string]: unknown;
}

export interface TextCompletions {
  completions: {
    create(request: TextCompletionParams, options?: RequestOptions): Promise<TextCompletion | AsyncIterable<TextCompletion>>;
  };
}

const FIELDS = ['model', 'prompt', 'echo', 'suffix', 'best_of', 'logprobs', 'return_token_ids', 'skip_special_tokens', ...GENERATION_FIELDS];

export function createTextCompletions(engine: ApiEngine, options: SurfaceOptions = {}): TextCompletions {
  async function create(value: TextCompletionParams, request: RequestOptions = {}): Promise<TextCompletion | AsyncIterable<TextCompletion>> {
    const { model, tokenizer } = served(engine, options);
    const body = objectAt(value, 'body');
    onlyKnown(body, FIELDS, '');
    checkModel(requiredString(body, 'model'), model);
    defaultOnly(body, 'echo', false, 'the prompt is not repeated in the text');
    defaultOnly(body, 'best_of', 1, 'one completion per request');
    defaultOnly(body, 'n', 1, 'one completion per request: chat completions sample several');
    if (present(body, 'suffix')) throw invalidField('suffix', 'insertion is not supported: Llama 3.1 continues a prompt');
    if (present(body, 'logprobs')) throw invalidField('logprobs', 'log probabilities are not returned');
    const generation = readGenerationFields(body);
    // vLLM's: the ids with the text; llama-server's and vLLM's: whether special tokens (the python tag) stay in the text.
    const withIds = optionalBoolean(body, 'return_token_ids') ?? false;
    const tagText = optionalBoolean(body, 'skip_special_tokens') ? '' : PYTHON_TAG_TEXT;
    const tokens = promptIds(body, tokenizer);
    const maxTokens = generation.maxTokens ?? DEFAULT_COMPLETION_TOKENS;
    checkRoom(tokens.length, maxTokens, model.contextWindow, 'prompt');
    const who = responseIdentity(model.modelId, 'cmpl');
    const run = (signal: AbortSignal | undefined, onText?: (delta: string, ids: readonly number[]) => void) =>
      generateText({ engine, tokenizer, model, tokens, maxTokens, generation, tagText, signal, onText });
    const ids = (emitted: readonly number[], prompt: boolean): Partial<TextChoice> =>
      withIds ? { token_ids: [...emitted], ...(prompt ? { prompt_token_ids: tokens } : {}) } : {};
    const ending = (done: Emitted): Partial<TextChoice> => (withIds ? { stop_reason: done.stoppedBy === null ? done.result.stopId : null } : {});
    if (!generation.stream) {
      const done = await run(request.signal);
      const emitted = [...(done.emitted.ids ?? []), ...stopIdOf(done.emitted)];
      return { ...who, object: 'text_completion', choices: [{ ...choice(done.text, finishOf(done.emitted)), ...ids(emitted, true), ...ending(done.emitted) }], usage: usageOfEmitted(done.emitted) };
    }
    return abortableStream<TextCompletion>(async (push, signal) => {
      let first = true;
      const done = await run(signal, (text, batch) => {
        push({ ...who, object: 'text_completion', choices: [{ ...choice(text, null), ...ids(batch, first) }] });
        first = false;
      });
      push({ ...who, object: 'text_completion', choices: [{ ...choice('', finishOf(done.emitted)), ...ids(stopIdOf(done.emitted), first), ...ending(done.emitted) }] });
      if (generation.includeUsage) push({ ...who, object: 'text_completion', choices: [], usage: usageOfEmitted(done.emitted) });
    }, request.signal);
  }
  return { completions: { create } };
}

function promptIds(body: JsonObject, tokenizer: TextTokenizer): number[] {
  const prompt = body.prompt;
  if (typeof prompt === 'string') return [BEGIN_OF_TEXT, ...tokenizer.encode(prompt)];
  if (Array.isArray(prompt) && prompt.length > 0 && prompt.every((id) => Number.isInteger(id))) {
    prompt.forEach((id, i) => {
      if ((id as number) < 0 || (id as number) >= VOCAB_SIZE) throw invalidField(`prompt[${i}]`, `expected a token id below ${VOCAB_SIZE}`);
    });
    return prompt as number[];
  }
  if (Array.isArray(prompt) && prompt.length > 0) throw invalidField('prompt', 'one prompt per request: a string or an array of token ids (batches are not supported)');
  throw invalidField('prompt', 'expected a non-empty string or array of token ids');
}

interface TextRun {
  engine: ApiEngine;
  tokenizer: TextTokenizer;
  model: LoadedModelInfo;
  tokens: number[];
  maxTokens: number;
  generation: GenerationFields;
  /** What the python tag becomes in the text. */
  tagText: string;
  signal: AbortSignal | undefined;
  /** Text that became visible and the ids emitted since the last call (either may be empty, not both). */
  onText?: (delta: string, ids: readonly number[]) => void;
}

async function generateText(r: TextRun): Promise<{ text: string; emitted: Emitted }> {
  const stream = new ContentStream(false, r.generation.stop);
  const send = (delta: string, ids: readonly number[] = []) => (delta !== '' || ids.length > 0) && r.onText?.(delta, ids);
  try {
    const emitted = await generatePieces(
      r.engine,
      r.tokenizer,
      { tokens: r.tokens, sampling: { ...r.model.sampling, ...r.generation.sampling }, maxTokens: r.maxTokens, ...(r.generation.cacheSalt ? { cacheSalt: r.generation.cacheSalt } : {}) },
      { stops: r.generation.stop, signal: r.signal, onText: (pieces, ids) => send(stream.update([pieces.join(r.tagText)]), ids) },
    );
    if (r.signal?.aborted) throw abortError('the request was aborted');
    const text = emitted.pieces.join(r.tagText);
    send(stream.finish(text));
    return { text, emitted };
  } catch (e) {
    if (isAbortError(e)) throw e;
    throw toApiError(e);
  }
}

function choice(text: string, finish: TextChoice['finish_reason']): TextChoice {
  return { index: 0, text, logprobs: null, finish_reason: finish };
}

/** The stop id that ended the generation, as the last of the ids (none when a stop string or the limit did). */
function stopIdOf(emitted: Emitted): number[] {
  return emitted.stoppedBy === null && emitted.result.stopId !== null ? [emitted.result.stopId] : [];
}

function finishOf(emitted: Emitted): 'stop' | 'length' {
  return emitted.result.stop === 'length' && emitted.stoppedBy === null ? 'length' : 'stop';
}

function usageOfEmitted(emitted: Emitted): CompletionUsage {
  const { stats } = emitted.result;
  return usageOf({ promptTokens: stats.promptTokens, completionTokens: stats.decodedTokens, cachedTokens: stats.reusedTokens });
}
