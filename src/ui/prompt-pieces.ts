/**
 * The inspector's view of one step's prompt: its ids cut into pieces — each special token on its
 * own, the text between specials as one piece — and split where the KV cache's reuse ends.
 *
 * Invariants: the pieces' ids concatenate to the prompt's ids exactly, in order; a piece is
 * entirely reused (`ids < reusedTokens`) or entirely prefilled this step; special pieces hold one
 * id. Text comes from the page's tokenizer, decoded by ids, so a literal "<|eot_id|>" typed inside content
 * is text, never mistaken for the special token.
 */
import { isSpecialId, specialTokenName } from '../format/special-tokens';

export interface PromptPiece {
  kind: 'special' | 'text';
  ids: number[];
  text: string;
  /** In the KV cache before this step (not recomputed). */
  reused: boolean;
}

export function promptPieces(ids: readonly number[], reusedTokens: number, decode: (ids: number[]) => string): PromptPiece[] {
  const raw: Array<{ kind: 'special' | 'text'; ids: number[]; reused: boolean }> = [];
  ids.forEach((id, i) => {
    const reused = i < reusedTokens;
    const kind = isSpecialId(id) ? 'special' : 'text';
    const last = raw[raw.length - 1];
    if (kind === 'text' && last?.kind === 'text' && last.reused === reused) last.ids.push(id);
    else raw.push({ kind, ids: [id], reused });
  });
  return raw.map((p) => ({ ...p, text: p.kind === 'special' ? specialTokenName(p.ids[0]!) : decode(p.ids) }));
}
