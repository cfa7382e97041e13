import { replay as replayConversation } from '../../agent/replay';
import { parseConversation } from '../../format/conversation';
import { loadTokenizer } from '../../format/tokenizer/load-node';
import { createNodeEngine } from '../../../worker/create-node-engine';
import { parseCliArgs } from '../args';
import { printJson, readJsonFile, type CliIo } from '../io';
import { cliEngineOptions, cliModelRef, loadError, MODEL_FLAGS } from '../model-ref';
import { nodeTools } from '../node-tools';

/**
 * `replay [--model ID|FILE.gguf] [--engine URL] FILE`: runs FILE (the render input) through the real loop in Node, the model's
 * side forced; recorded tool results are used, missing ones come from the real tools.
 * Prints {prompts, steps, toolResults}.
 */
export async function replay(args: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseCliArgs(args, MODEL_FLAGS);
  const model = cliModelRef(values, 'tiny-llama');
  const file = positionals[0];
  const conversation = parseConversation(readJsonFile(file));
  const engine = createNodeEngine(undefined, cliEngineOptions(io.env));
  await engine.load(model).catch((e: unknown) => {
    throw loadError(e);
  });
  try {
    printJson(io, await replayConversation(conversation, { engine, tokenizer: loadTokenizer(), tools: nodeTools({}, io.env) }));
  } finally {
    await engine.unload();
  }
}
