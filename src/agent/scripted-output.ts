/**
 * Scripted model output: the ids a model would emit for a raw assistant text (replay forces them
 * through the real model and sampler; the tests' forced steps are in tests/support/).
 */
import { EOM, EOM_TEXT, EOT, EOT_TEXT, PYTHON_TAG, PYTHON_TAG_TEXT } from '../format/special-tokens';
import type { TextTokenizer } from '../format/types';

/**
 * The ids the model would emit for `raw`: `<|python_tag|>` is the tag's id, and a trailing
 * `<|eom_id|>` / `<|eot_id|>` is the terminator (default eot).
 */
export function scriptIds(raw: string, tokenizer: TextTokenizer): number[] {
  let body = raw;
  let terminator = EOT;
  if (body.endsWith(EOM_TEXT)) {
    body = body.slice(0, -EOM_TEXT.length);
    terminator = EOM;
  } else if (body.endsWith(EOT_TEXT)) {
    body = body.slice(0, -EOT_TEXT.length);
  }
  const ids: number[] = [];
  body.split(PYTHON_TAG_TEXT).forEach((piece, i) => {
    if (i > 0) ids.push(PYTHON_TAG);
    if (piece) ids.push(...tokenizer.encode(piece));
  });
  return [...ids, terminator];
}
