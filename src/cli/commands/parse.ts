import { parseAssistantOutput } from '../../format/parse';
import { printJson, type CliIo } from '../io';

/** `parse`: raw model output on stdin → {content, toolCalls, stop}. */
export async function parse(_args: string[], io: CliIo): Promise<void> {
  printJson(io, parseAssistantOutput(await io.readStdin()));
}
