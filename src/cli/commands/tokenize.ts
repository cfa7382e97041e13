import { loadTokenizer } from '../../format/tokenizer/load-node';
import { printJson, readStdin } from '../io';

/** `tokenize`: stdin encoded as plain content (special-token strings stay text) → JSON ids. */
export async function tokenize(): Promise<void> {
  printJson(loadTokenizer().encode(await readStdin()));
}
