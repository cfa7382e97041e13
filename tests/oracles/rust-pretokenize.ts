/**
 * Test oracle: Llama 3's pre-tokenizer written independently of the library the product uses
 * (src/format/tokenizer/llama-tokenizer.ts). The text is cut into pieces by one regex, and BPE runs
 * inside each piece; the tokenizer tests run textbook BPE over these pieces and compare.
 *
 * The pattern in tokenizer.json (and in Meta's tiktoken encoder) is written for Rust/Oniguruma:
 *   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
 * JavaScript (Node 20) has no inline `(?i:...)`, and its `\s` is not Rust's, so the JS form differs
 * in exactly two ways, each keeping the Rust meaning:
 * - the case-insensitive group is spelled out with Unicode simple case folding, which adds `ſ`
 *   (U+017F, folds to `s`) to `[sS]`: `'ſ` is a contraction for Meta's encoder and for Hugging Face's;
 * - `\s` / `\S` become `\p{White_Space}` / `\P{White_Space}`: Rust's `\s` includes U+0085 (NEL) and
 *   excludes U+FEFF (BOM), JavaScript's does the opposite.
 *
 * Invariant: every character of the input is matched by some alternative (letters, numbers, other
 * non-space, space), so the pieces are non-empty and concatenate back to the input exactly.
 */

export { LLAMA3_SPLIT_PATTERN } from '../../src/format/tokenizer/llama-tokenizer';

const S = '\\p{White_Space}';
const NOT_S = '\\P{White_Space}';
/** `(?i:'s|'t|'re|'ve|'m|'ll|'d)` for JavaScript: each letter with all its simple case foldings. */
export const CONTRACTION_PATTERN = "'(?:[sSſ]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])";

/** The JavaScript equivalent of `LLAMA3_SPLIT_PATTERN` (flags `gu`). */
export const PRETOKENIZE_REGEX = new RegExp(
  [
    CONTRACTION_PATTERN,
    '[^\\r\\n\\p{L}\\p{N}]?\\p{L}+',
    '\\p{N}{1,3}',
    ` ?[^${S}\\p{L}\\p{N}]+[\\r\\n]*`,
    `${S}*[\\r\\n]+`,
    `${S}+(?!${NOT_S})`,
    `${S}+`,
  ].join('|'),
  'gu',
);

/**
 * Cuts well-formed text into Llama 3 pre-tokens, in order; `pieces.join('') === text`.
 * (Lone surrogates are the caller's concern: `encode` replaces them with U+FFFD first.)
 */
export function pretokenize(text: string): string[] {
  // `match` with the g flag returns every match in order; there are no gaps (see the invariant).
  return text.match(PRETOKENIZE_REGEX) ?? [];
}
