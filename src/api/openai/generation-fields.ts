/**
 * The generation fields chat and text completions share: sampling, limits, stop strings, streaming.
 * Ranges are OpenAI's; each maps onto the engine's own setting (src/engine/contract.ts).
 */
import type { SamplingParams } from '../../engine/contract';
import { STOP_IDS, VOCAB_SIZE } from '../../format/special-tokens';
import { invalidField } from '../api-error';
import { isObject, objectAt, onlyKnown, optionalBoolean, optionalNumber, present, type JsonObject } from './fields';

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

export function readGenerationFields(body: JsonObject, maxTokensKeys: readonly string[] = ['max_tokens']): GenerationFields {
  const sampling: SamplingParams = {};
  const set = <K extends keyof SamplingParams>(key: K, value: SamplingParams[K] | undefined) => {
    if (value !== undefined) sampling[key] = value;
  };
  set('temperature', optionalNumber(body, 'temperature', { min: 0, max: 2 }));
  set('topP', optionalNumber(body, 'top_p', { min: 0, max: 1, minExclusive: true }));
  set('seed', optionalNumber(body, 'seed', { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER, integer: true }));
  set('frequencyPenalty', optionalNumber(body, 'frequency_penalty', { min: -2, max: 2 }));
  set('presencePenalty', optionalNumber(body, 'presence_penalty', { min: -2, max: 2 }));
  set('logitBias', logitBias(body));
  // vLLM's and llama-server's: top_k -1 (vLLM) and 0 (llama-server) both mean off.
  const topK = optionalNumber(body, 'top_k', { min: -1, max: Number.MAX_SAFE_INTEGER, integer: true });
  set('topK', topK === undefined ? undefined : Math.max(topK, 0));
  set('minP', optionalNumber(body, 'min_p', { min: 0, max: 1 }));
  set('repetitionPenalty', optionalNumber(body, 'repetition_penalty', { min: 0, max: 100, minExclusive: true }));
  // llama-server's window of the penalties: the last n ids (-1: all of them, 0: none).
  const window = optionalNumber(body, 'repeat_last_n', { min: -1, max: Number.MAX_SAFE_INTEGER, integer: true });
  set('penaltyWindow', window === -1 ? Number.MAX_SAFE_INTEGER : window);
  stopTokenIds(body);
  // Accepted as OpenAI documents it (an end-user id for abuse monitoring); this server stores and logs nothing of it.
  if (present(body, 'user') && typeof body.user !== 'string') throw invalidField('user', 'expected a string');
  const cacheSalt = present(body, 'cache_salt') ? body.cache_salt : undefined;
  if (cacheSalt !== undefined && (typeof cacheSalt !== 'string' || cacheSalt === '')) throw invalidField('cache_salt', 'expected a non-empty string');
  const choices = optionalNumber(body, 'n', { min: 1, max: MAX_CHOICES, integer: true }) ?? 1;
  const stream = optionalBoolean(body, 'stream') ?? false;
  return { sampling, maxTokens: maxTokens(body, maxTokensKeys), stop: stops(body), stream, includeUsage: includeUsage(body, stream), choices, ...(cacheSalt ? { cacheSalt } : {}) };
}

function maxTokens(body: JsonObject, keys: readonly string[]): number | undefined {
  const given = keys.filter((k) => present(body, k));
  if (given.length > 1) throw invalidField(given[1]!, `give either ${given.join(' or ')}, not both`);
  return given[0] ? optionalNumber(body, given[0], { min: 1, max: Number.MAX_SAFE_INTEGER, integer: true }) : undefined;
}

function stops(body: JsonObject): string[] {
  if (!present(body, 'stop')) return [];
  const list = typeof body.stop === 'string' ? [body.stop] : body.stop;
  if (!Array.isArray(list) || !list.every((s) => typeof s === 'string' && s !== '')) throw invalidField('stop', 'expected a non-empty string or an array of them');
  if (list.length > MAX_STOPS) throw invalidField('stop', `at most ${MAX_STOPS} stop strings`);
  return list as string[];
}

/** `{"<token id>": bias}` with bias in [-100, 100]; added to that token's logit before sampling. */
function logitBias(body: JsonObject): Record<number, number> | undefined {
  if (!present(body, 'logit_bias')) return undefined;
  const out: Record<number, number> = {};
  for (const [key, bias] of Object.entries(objectAt(body.logit_bias, 'logit_bias'))) {
    const id = Number(key);
    if (!/^\d+$/.test(key) || id >= VOCAB_SIZE) throw invalidField(`logit_bias.${key}`, `expected a token id below ${VOCAB_SIZE}`);
    if (typeof bias !== 'number' || !(bias >= -100 && bias <= 100)) throw invalidField(`logit_bias.${key}`, 'expected a bias from -100 to 100');
    out[id] = bias;
  }
  return out;
}

/**
 * vLLM's `stop_token_ids`: ids that end a generation besides the model's own. Here generation always
 * ends at Llama 3.1's stop ids, so those are accepted (the engine already stops there) and any other
 * id is refused.
 */
function stopTokenIds(body: JsonObject): void {
  if (!present(body, 'stop_token_ids')) return;
  const ids = body.stop_token_ids;
  if (!Array.isArray(ids)) throw invalidField('stop_token_ids', 'expected an array of token ids');
  ids.forEach((id, i) => {
    if (!STOP_IDS.has(id as number)) throw invalidField(`stop_token_ids[${i}]`, `only Llama 3.1's stop ids (${[...STOP_IDS].join(', ')}) end a generation here`);
  });
}

function includeUsage(body: JsonObject, stream: boolean): boolean {
  if (!present(body, 'stream_options')) return false;
  if (!stream) throw invalidField('stream_options', 'only with "stream": true');
  const options = body.stream_options;
  if (!isObject(options)) throw invalidField('stream_options', 'expected an object');
  onlyKnown(options, ['include_usage'], 'stream_options');
  return optionalBoolean(options, 'include_usage', 'stream_options') ?? false;
}
