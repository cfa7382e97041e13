/**
 * The Llama 3.1 tokenizer as GGUF metadata, from our generated tokenizer.json: byte-level BPE
 * (`tokenizer.ggml.model = "gpt2"`, `pre = "llama-bpe"`), every token's string by id, its type
 * (1 normal, 3 control for the 256 special ids), the merges, and the special ids llama.cpp needs to
 * list the end-of-generation set [128001, 128008, 128009]: bos 128000, eos and eot 128009, eom 128008.
 */
import { BEGIN_OF_TEXT, EOM, EOT, FIRST_SPECIAL_ID, VOCAB_SIZE } from '../../src/format/special-tokens';
import type { GgufValue } from './gguf-writer';

/** llama_token_type: LLAMA_TOKEN_TYPE_NORMAL = 1, LLAMA_TOKEN_TYPE_CONTROL = 3. */
export const TOKEN_TYPE_NORMAL = 1;
export const TOKEN_TYPE_CONTROL = 3;

export interface GgufTokenizer {
  /** Token strings by id (VOCAB_SIZE of them). */
  tokens: string[];
  tokenTypes: Int32Array;
  /** "left right" pairs, in rank order. */
  merges: string[];
  chatTemplate?: string;
}

interface TokenizerJson {
  model: { vocab: Record<string, number>; merges: Array<string | [string, string]> };
  added_tokens: Array<{ id: number; content: string; special: boolean }>;
}

/** Reads tokenizer.json's text; throws unless it holds exactly the Llama 3.1 vocabulary's ids. */
export function ggufTokenizerFromJson(text: string, chatTemplate?: string): GgufTokenizer {
  const json = JSON.parse(text) as TokenizerJson;
  const tokens = new Array<string | undefined>(VOCAB_SIZE);
  const tokenTypes = new Int32Array(VOCAB_SIZE);
  for (const [token, id] of Object.entries(json.model.vocab)) {
    if (!(id >= 0 && id < FIRST_SPECIAL_ID) || tokens[id] !== undefined) throw new Error(`tokenizer.json: vocab id ${id} is out of range or repeated`);
    tokens[id] = token;
    tokenTypes[id] = TOKEN_TYPE_NORMAL;
  }
  for (const t of json.added_tokens) {
    if (!(t.id >= FIRST_SPECIAL_ID && t.id < VOCAB_SIZE) || tokens[t.id] !== undefined || !t.special) {
      throw new Error(`tokenizer.json: added token ${t.id} is not one of the special ids`);
    }
    tokens[t.id] = t.content;
    tokenTypes[t.id] = TOKEN_TYPE_CONTROL;
  }
  const missing = tokens.findIndex((t) => t === undefined);
  if (missing !== -1) throw new Error(`tokenizer.json: no token for id ${missing}`);
  const merges = json.model.merges.map((m) => (typeof m === 'string' ? m : `${m[0]} ${m[1]}`));
  return { tokens: tokens as string[], tokenTypes, merges, ...(chatTemplate === undefined ? {} : { chatTemplate }) };
}

export function tokenizerMetadata(t: GgufTokenizer): Array<[string, GgufValue]> {
  const id = (value: number): GgufValue => ({ type: 'uint32', value });
  const out: Array<[string, GgufValue]> = [
    ['tokenizer.ggml.model', { type: 'string', value: 'gpt2' }],
    ['tokenizer.ggml.pre', { type: 'string', value: 'llama-bpe' }],
    ['tokenizer.ggml.tokens', { type: 'array', itemType: 'string', value: t.tokens }],
    ['tokenizer.ggml.token_type', { type: 'array', itemType: 'int32', value: t.tokenTypes }],
    ['tokenizer.ggml.merges', { type: 'array', itemType: 'string', value: t.merges }],
    ['tokenizer.ggml.bos_token_id', id(BEGIN_OF_TEXT)],
    ['tokenizer.ggml.eos_token_id', id(EOT)],
    ['tokenizer.ggml.eot_token_id', id(EOT)],
    ['tokenizer.ggml.eom_token_id', id(EOM)],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: true }],
  ];
  if (t.chatTemplate !== undefined) out.push(['tokenizer.chat_template', { type: 'string', value: t.chatTemplate }]);
  return out;
}
