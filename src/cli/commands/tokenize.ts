import { loadTokenizer } from '../../format/tokenizer/load-node';
import { printJson, type CliIo } from '../io';

/** `tokenize`: stdin encoded as plain content (special-token strings stay text) → JSON ids. */
export async function tokenize(_args: string[], io: CliIo): Promise<void> {
  printJson(io, loadTokenizer().encode(await io.readStdin()));
}
