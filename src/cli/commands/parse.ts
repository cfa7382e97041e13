import { parseAssistantOutput } from '../../format/parse';
import { printJson, readStdin } from '../io';

/** `parse`: raw model output on stdin → {content, toolCalls, stop}. */
export async function parse(): Promise<void> {
  printJson(parseAssistantOutput(await readStdin()));
}
