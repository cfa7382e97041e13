import { parseConversation } from '../../format/conversation';
import { renderSegments, segmentsToIds, segmentsToText } from '../../format/render';
import { loadTokenizer } from '../../format/tokenizer/load-node';
import { parseCliArgs } from '../args';
import { readJsonFile, type CliIo } from '../io';

/** `render [--ids] FILE`: the exact prompt string (nothing appended), or its token ids as JSON. */
export async function render(args: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseCliArgs(args, { ids: { type: 'boolean' } });
  const ids = values.ids === true;
  const file = positionals[0];
  const segments = renderSegments(parseConversation(readJsonFile(file)));
  if (ids) io.stdout(`${JSON.stringify(segmentsToIds(segments, loadTokenizer()))}\n`);
  else io.stdout(segmentsToText(segments, segments.some((s) => s.kind === 'emitted') ? loadTokenizer() : undefined));
}
