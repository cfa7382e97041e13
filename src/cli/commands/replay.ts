import { replay as replayConversation } from '../../agent/replay';
import { parseConversation } from '../../format/conversation';
import { loadTokenizer } from '../../format/tokenizer/load-node';
import { createNodeEngine } from '../../../worker/create-node-engine';
import { parseCliArgs } from '../args';
import { CliError } from '../cli-error';
import { printJson, readJsonFile } from '../io';
import { nodeTools } from '../node-tools';

/**
 * `replay [--model ID] FILE`: runs FILE (the render input) through the real loop in Node, the model's
 * side forced; recorded tool results are used, missing ones come from the real tools.
 * Prints {prompts, steps, toolResults}.
 */
export async function replay(args: string[]): Promise<void> {
  const { values, positionals } = parseCliArgs(args, { model: { type: 'string', default: 'tiny-llama' } });
  const modelId = values.model;
  if (!modelId) throw new CliError('--model needs a model id');
  const file = positionals[0];
  const conversation = parseConversation(readJsonFile(file));
  const engine = createNodeEngine();
  await engine.load(modelId);
  try {
    printJson(await replayConversation(conversation, { engine, tokenizer: loadTokenizer(), tools: nodeTools() }));
  } finally {
    await engine.unload();
  }
}
