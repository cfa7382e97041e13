/**
 * The generation fields chat and text completions share: sampling, limits, stop strings, streaming.
 * Ranges are OpenAI's; each maps onto the engine's own setting (src/engine/contract.ts).
 */
import * as v from 'valibot';
import type { SamplingParams } from '../../engine/contract';
import { STOP_IDS, VOCAB_SIZE } from '../../format/special-tokens';
import { nonEmptyText } from '../../parse/fields';
import { invalidField } from '../api-error';
import { checked, knownObject, numberIn, objectAt, optionalBoolean, optionalField, optionalNumber, present, trueOrFalse, type JsonObject } from './fields';

export const GENERATION_FIELDS = [
  'temperature', 'top_p', 'top_k', 'min_p', 'repetition_penalty', 'seed', 'frequency_penalty', 'presence_penalty', 'logit_bias',
  'max_tokens', 'stop', 'stream', 'stream_options', 'n', 'user', 'cache_salt', 'repeat_last_n', 'stop_token_ids',
] as const;

export interface GenerationFields {
  sampling: SamplingParams;
  maxTokens?: number;
  stop: string[];
  stream: boolean;
  includeUsage: boolean;
  /** `cache_salt` (vLLM's): requests with different salts never share cached ids. */
  cacheSalt?: string;
  /** Choices to sample from the one prompt (`n`, 1 to MAX_CHOICES). */
  choices: number;
}

export const MAX_CHOICES = 8;

const MAX_STOPS = 4;

const ANY_INTEGER = { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER, integer: true };

/** vLLM's and llama-server's `top_k`: -1 (vLLM) and 0 (llama-server) both mean off. */
const topK = v.pipe(numberIn({ min: -1, max: Number.MAX_SAFE_INTEGER, integer: true }), v.transform((k) => Math.max(k, 0)));

/** llama-server's `repeat_last_n`, the window of the penalties: the last n ids (-1: all of them, 0: none). */
const penaltyWindow = v.pipe(numberIn({ min: -1, max: Number.MAX_SAFE_INTEGER, integer: true }), v.transform((n) => (n === -1 ? Number.MAX_SAFE_INTEGER : n)));

const STOP_MESSAGE = 'expected a non-empty string or an array of them';

/** `stop`: one string or up to MAX_STOPS of them, as a list. */
const stopList = v.pipe(
  v.union([nonEmptyText(STOP_MESSAGE), v.array(nonEmptyText(STOP_MESSAGE))], STOP_MESSAGE),
  v.transform((stop) => (typeof stop === 'string' ? [stop] : stop)),
  v.maxLength(MAX_STOPS, `at most ${MAX_STOPS} stop strings`),
);

/** A `logit_bias` key: a token id of Llama 3.1's vocabulary, written in decimal digits. */
const tokenIdKey = v.pipe(
  v.string(),
  v.regex(/^\d+$/, `expected a token id below ${VOCAB_SIZE}`),
  v.check((key) => Number(key) < VOCAB_SIZE, `expected a token id below ${VOCAB_SIZE}`),
  v.transform(Number),
);

const BIAS_MESSAGE = 'expected a bias from -100 to 100';
const bias = v.pipe(v.number(BIAS_MESSAGE), v.minValue(-100, BIAS_MESSAGE), v.maxValue(100, BIAS_MESSAGE));

/**
 * vLLM's `stop_token_ids`: ids that end a generation besides the model's own. Here generation always
 * ends at Llama 3.1's stop ids, so those are accepted (the engine already stops there) and any other
 * id is refused.
 */
const stopTokenIdList = v.array(
  v.custom<number>((id) => STOP_IDS.has(id as number), `only Llama 3.1's stop ids (${[...STOP_IDS].join(', ')}) end a generation here`),
  'expected an array of token ids',
);

/** `user`: accepted as OpenAI documents it (an end-user id for abuse monitoring); this server stores and logs nothing of it. */
const user = v.string('expected a string');

/** vLLM's `cache_salt`. */
const cacheSalt = nonEmptyText('expected a non-empty string');

const streamOptions = knownObject({ include_usage: v.nullish(trueOrFalse) });

export function readGenerationFields(body: JsonObject, maxTokensKeys: readonly string[] = ['max_tokens']): GenerationFields {
  const sampling: SamplingParams = {};
  const set = <K extends keyof SamplingParams>(key: K, value: SamplingParams[K] | undefined) => {
    if (value !== undefined) sampling[key] = value;
  };
  set('temperature', optionalNumber(body, 'temperature', { min: 0, max: 2 }));
  set('topP', optionalNumber(body, 'top_p', { min: 0, max: 1, minExclusive: true }));
  set('seed', optionalNumber(body, 'seed', ANY_INTEGER));
  set('frequencyPenalty', optionalNumber(body, 'frequency_penalty', { min: -2, max: 2 }));
  set('presencePenalty', optionalNumber(body, 'presence_penalty', { min: -2, max: 2 }));
  set('logitBias', logitBias(body));
  set('topK', optionalField(body, 'top_k', topK));
  set('minP', optionalNumber(body, 'min_p', { min: 0, max: 1 }));
  set('repetitionPenalty', optionalNumber(body, 'repetition_penalty', { min: 0, max: 100, minExclusive: true }));
  set('penaltyWindow', optionalField(body, 'repeat_last_n', penaltyWindow));
  optionalField(body, 'stop_token_ids', stopTokenIdList);
  optionalField(body, 'user', user);
  const salt = optionalField(body, 'cache_salt', cacheSalt);
  const choices = optionalNumber(body, 'n', { min: 1, max: MAX_CHOICES, integer: true }) ?? 1;
  const stream = optionalBoolean(body, 'stream') ?? false;
  return { sampling, maxTokens: maxTokens(body, maxTokensKeys), stop: stops(body), stream, includeUsage: includeUsage(body, stream), choices, ...(salt ? { cacheSalt: salt } : {}) };
}

function maxTokens(body: JsonObject, keys: readonly string[]): number | undefined {
  const given = keys.filter((k) => present(body, k));
  if (given.length > 1) throw invalidField(given[1]!, `give either ${given.join(' or ')}, not both`);
  return given[0] ? optionalNumber(body, given[0], { min: 1, max: Number.MAX_SAFE_INTEGER, integer: true }) : undefined;
}

/** `stop`: the whole field is named in its 400, whichever string is wrong. */
function stops(body: JsonObject): string[] {
  return present(body, 'stop') ? checked(stopList, body.stop, 'stop', 'field') : [];
}

/**
 * `{"<token id>": bias}` with bias in [-100, 100]; added to that token's logit before sampling. Each
 * entry is checked by hand-written iteration rather than valibot's record, which skips the keys
 * `__proto__`, `prototype` and `constructor` instead of refusing them.
 */
function logitBias(body: JsonObject): Record<number, number> | undefined {
  if (!present(body, 'logit_bias')) return undefined;
  const out: Record<number, number> = {};
  for (const [key, value] of Object.entries(objectAt(body.logit_bias, 'logit_bias'))) {
    out[checked(tokenIdKey, key, `logit_bias.${key}`)] = checked(bias, value, `logit_bias.${key}`);
  }
  return out;
}

function includeUsage(body: JsonObject, stream: boolean): boolean {
  if (!present(body, 'stream_options')) return false;
  if (!stream) throw invalidField('stream_options', 'only with "stream": true');
  return checked(streamOptions, body.stream_options, 'stream_options').include_usage ?? false;
}
