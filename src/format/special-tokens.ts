/**
 * Llama 3.1's special tokens (shared/FORMAT.md "Tokens"). Ids 128000–128255 are all special;
 * the named ones follow Meta's reference tokenizer, the rest are `<|reserved_special_token_N|>`.
 */

export const BEGIN_OF_TEXT = 128000;
export const END_OF_TEXT = 128001;
export const START_HEADER = 128006;
export const END_HEADER = 128007;
export const EOM = 128008;
export const EOT = 128009;
export const PYTHON_TAG = 128010;

/** First special id; every id at or above it is special, every id below it is ordinary text. */
export const FIRST_SPECIAL_ID = 128000;
export const VOCAB_SIZE = 128256;

/** Ids that end generation. The caller is always told which one fired. */
export const STOP_IDS: ReadonlySet<number> = new Set([END_OF_TEXT, EOM, EOT]);

export type StopToken = 'eom' | 'eot' | 'end_of_text';

/** Which terminator an id is, or null for any other id. */
export function stopKind(id: number): StopToken | null {
  if (id === EOM) return 'eom';
  if (id === EOT) return 'eot';
  if (id === END_OF_TEXT) return 'end_of_text';
  return null;
}

const NAMED: ReadonlyArray<string> = [
  '<|begin_of_text|>',
  '<|end_of_text|>',
  '<|reserved_special_token_0|>',
  '<|reserved_special_token_1|>',
  '<|finetune_right_pad_id|>',
  '<|step_id|>',
  '<|start_header_id|>',
  '<|end_header_id|>',
  '<|eom_id|>',
  '<|eot_id|>',
  '<|python_tag|>',
  '<|image|>',
];

export function isSpecialId(id: number): boolean {
  return id >= FIRST_SPECIAL_ID && id < VOCAB_SIZE;
}

/** The name of a special id, e.g. 128009 → `<|eot_id|>`, 128012 → `<|reserved_special_token_2|>`. */
export function specialTokenName(id: number): string {
  if (!isSpecialId(id)) throw new RangeError(`not a special token id: ${id}`);
  const offset = id - FIRST_SPECIAL_ID;
  return NAMED[offset] ?? `<|reserved_special_token_${offset - NAMED.length + 2}|>`;
}

/** Every special token, id → name, in id order (256 entries). */
export function allSpecialTokens(): Array<{ id: number; name: string }> {
  const out: Array<{ id: number; name: string }> = [];
  for (let id = FIRST_SPECIAL_ID; id < VOCAB_SIZE; id++) out.push({ id, name: specialTokenName(id) });
  return out;
}

export const PYTHON_TAG_TEXT = '<|python_tag|>';
export const EOM_TEXT = '<|eom_id|>';
export const EOT_TEXT = '<|eot_id|>';
