import type { AgentEvent } from '../../agent/events';
import { parseRecording, recordedTools } from '../../agent/recorded-tools';
import { runAgent } from '../../agent/run-agent';
import { collect, ofType } from '../../agent/collect-events';
import { loadTokenizer } from '../../format/tokenizer/load-node';
import { createNodeEngine } from '../../../worker/create-node-engine';
import { parseCliArgs } from '../args';
import { CliError } from '../cli-error';
import { resolveModelId } from '../model-id';
import { printJson, readJsonFile } from '../io';
import { nodeTools } from '../node-tools';

/**
 * `ask [--model ID|micro] [--results FILE] "question"`: the unforced loop in Node, greedy. Tools are
 * the real ones (through TOOL_PROXY_URL), or with --results the recorded answers of FILE. Calls are
 * confirmed: asking the CLI is the user's consent. Prints {answer, finish, steps: [{raw, stop, toolCalls, toolResults}]}.
 */
export async function ask(args: string[]): Promise<void> {
  const options = readOptions(args);
  const engine = createNodeEngine();
  await engine.load(options.modelId);
  try {
    const events = await collect(
      runAgent({
        engine,
        tokenizer: loadTokenizer(),
        tools: options.results ? recordedTools(parseRecording(readJsonFile(options.results))) : nodeTools(),
        conversation: { messages: [{ role: 'user', content: options.question }] },
        sampling: { temperature: 0 },
        confirm: async () => true,
        model: engine.model,
      }),
    );
    const error = ofType(events, 'error')[0];
    if (error) throw new CliError(`${error.error.code}: ${error.error.message}`);
    const finish = ofType(events, 'finish')[0]!;
    printJson({ answer: finish.text, finish: finish.reason, steps: stepsOf(events) });
  } finally {
    await engine.unload();
  }
}

function stepsOf(events: AgentEvent[]) {
  return ofType(events, 'step-finish').map((s) => ({
    raw: s.raw,
    stop: s.stop,
    toolCalls: ofType(events, 'tool-call').filter((c) => c.step === s.step).map((c) => c.call),
    toolResults: ofType(events, 'tool-result').filter((r) => r.step === s.step).map(({ name, content, isError }) => ({ name, content, isError })),
  }));
}

function readOptions(args: string[]): { modelId: string; results?: string; question: string } {
  const { values, positionals } = parseCliArgs(args, { model: { type: 'string', default: 'micro' }, results: { type: 'string' } });
  const results = values.results;
  const question = positionals.join(' ').trim();
  if (!question) throw new CliError('missing the question');
  return { modelId: resolveModelId(values.model), question, ...(results ? { results } : {}) };
}
