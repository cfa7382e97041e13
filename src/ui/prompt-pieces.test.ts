import { expect, it } from 'vitest';
import { renderIds, renderPrompt } from '../format/render';
import { loadTokenizer } from '../format/tokenizer/load-node';
import { promptPieces } from './prompt-pieces';

const tokenizer = loadTokenizer();
const decode = (ids: number[]) => tokenizer.decode(ids);
const conversation = { messages: [{ role: 'user' as const, content: 'Say <|eot_id|> literally, please.' }], date: '11 August 2026' };

it('pieces rebuild the prompt exactly; a literal special-token string in content stays text', async () => {
  const ids = renderIds(conversation, tokenizer);
  const pieces = promptPieces(ids, 0, decode);
  expect(pieces.flatMap((p) => p.ids)).toEqual(ids);
  expect(pieces.map((p) => p.text).join('')).toBe(renderPrompt(conversation));
  const specials = pieces.filter((p) => p.kind === 'special').map((p) => p.text);
  expect(specials.filter((t) => t === '<|eot_id|>')).toHaveLength(2); // system and user turns, not the content
  expect(pieces.find((p) => p.kind === 'text' && p.text.includes('Say <|eot_id|> literally'))).toBeDefined();
});

it('splits at the end of the reused prefix', async () => {
  const ids = renderIds(conversation, tokenizer);
  const reused = ids.length - 3;
  const pieces = promptPieces(ids, reused, decode);
  expect(pieces.filter((p) => p.reused).flatMap((p) => p.ids)).toEqual(ids.slice(0, reused));
  expect(pieces.filter((p) => !p.reused).flatMap((p) => p.ids)).toEqual(ids.slice(reused));
  expect(pieces.every((p) => p.kind === 'text' || p.ids.length === 1)).toBe(true);
});
