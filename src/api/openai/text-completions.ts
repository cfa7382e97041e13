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
import { defaultOnly, objectAt, onlyKnown, present, requiredString, type JsonObject } from './fields';
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
  choices: Array<{ index: 0; text: string; logprobs: null; finish_reason: 'stop' | 'length' | null }>;
  usage?: CompletionUsage | null;
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

const FIELDS = ['model', 'prompt', 'echo', 'suffix', 'best_of', 'logprobs', ...GENERATION_FIELDS];

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
    const tokens = promptIds(body, tokenizer);
    const maxTokens = generation.maxTokens ?? DEFAULT_COMPLETION_TOKENS;
    checkRoom(tokens.length, maxTokens, model.contextWindow, 'prompt');
    const who = responseIdentity(model.modelId, 'cmpl');
    const run = (signal: AbortSignal | undefined, onText?: (delta: string) => void) => generateText({ engine, tokenizer, model, tokens, maxTokens, generation, signal, onText });
    if (!generation.stream) {
      const done = await run(request.signal);
      return { ...who, object: 'text_completion', choices: [choice(done.text, finishOf(done.emitted))], usage: usageOfEmitted(done.emitted) };
    }
    return abortableStream<TextCompletion>(async (push, signal) => {
      const done = await run(signal, (text) => push({ ...who, object: 'text_completion', choices: [choice(text, null)] }));
      push({ ...who, object: 'text_completion', choices: [choice('', finishOf(done.emitted))] });
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
  signal: AbortSignal | undefined;
  onText?: (delta: string) => void;
}

async function generateText(r: TextRun): Promise<{ text: string; emitted: Emitted }> {
  const stream = new ContentStream(false, r.generation.stop);
  const send = (delta: string) => delta !== '' && r.onText?.(delta);
  try {
    const emitted = await generatePieces(
      r.engine,
      r.tokenizer,
      { tokens: r.tokens, sampling: { ...r.model.sampling, ...r.generation.sampling }, maxTokens: r.maxTokens, ...(r.generation.cacheSalt ? { cacheSalt: r.generation.cacheSalt } : {}) },
      { stops: r.generation.stop, signal: r.signal, onText: (pieces) => send(stream.update(pieces)) },
    );
    if (r.signal?.aborted) throw abortError('the request was aborted');
    const text = emitted.pieces.join(PYTHON_TAG_TEXT);
    send(stream.finish(text));
    return { text, emitted };
  } catch (e) {
    if (isAbortError(e)) throw e;
    throw toApiError(e);
  }
}

function choice(text: string, finish: TextCompletion['choices'][number]['finish_reason']): TextCompletion['choices'][number] {
  return { index: 0, text, logprobs: null, finish_reason: finish };
}

function finishOf(emitted: Emitted): 'stop' | 'length' {
  return emitted.result.stop === 'length' && emitted.stoppedBy === null ? 'length' : 'stop';
}

function usageOfEmitted(emitted: Emitted): CompletionUsage {
  const { stats } = emitted.result;
  return usageOf({ promptTokens: stats.promptTokens, completionTokens: stats.decodedTokens, cachedTokens: stats.reusedTokens });
}
