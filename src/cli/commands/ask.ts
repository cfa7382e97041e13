import { statSync } from 'node:fs';
import type { AgentEvent } from '../../agent/events';
import type { ModelRef } from '../../engine/contract';
import { parseRecording, recordedTools } from '../../agent/recorded-tools';
import { runAgent } from '../../agent/run-agent';
import { collect, ofType } from '../../agent/collect-events';
import { loadTokenizer } from '../../format/tokenizer/load-node';
import { createNodeEngine } from '../../../worker/create-node-engine';
import { parseCliArgs } from '../args';
import { CliError } from '../cli-error';
import { printJson, readJsonFile, type CliIo } from '../io';
import { cliEngineOptions, cliModelRef, loadError, MODEL_FLAGS } from '../model-ref';
import { nodeTools, type NodeToolOptions } from '../node-tools';
import { parseToolProvider, TOOL_PROVIDERS } from '../../tools/tool-provider';
import type { McpServerSpec } from '../../tools/mcp/mcp-connection';
import { connectMcp, MCP_FLAGS, mcpServerSpecs, type CliMcp } from '../cli-mcp';
import { CONTEXT_POLICIES, parseContextPolicy, type ContextPolicy } from '../../agent/context-policy';

/**
 * `ask [--model ID|micro|FILE.gguf] [--engine URL] [--results FILE] [--tools auto|service|local]
 * [--docs DIR] [--mcp URL]... [--mcp-stdio "COMMAND"]... [--context-policy rolling|keep-first|stop] "question"`: the unforced loop in Node, greedy (on an engine server: greedy as the
 * server samples). Tools are the real ones (through TOOL_PROXY_URL; with `auto`, the default, the local
 * index and local math answer when the proxy has no key or is not running), or with --results the
 * recorded answers of FILE; the tools of the MCP servers the flags name join them (cli-mcp.ts). Calls are
 * confirmed: asking the CLI is the user's consent. Prints {answer, finish, steps: [{raw, stop, toolCalls, toolResults}]},
 * and `mcp` (each server's state and tools) when MCP servers were named.
 */
export async function ask(args: string[], io: CliIo): Promise<void> {
  const options = readOptions(args, io.env);
  const engine = createNodeEngine(undefined, cliEngineOptions(io.env));
  await engine.load(options.model).catch((e: unknown) => {
    throw loadError(e);
  });
  const base = options.results ? recordedTools(parseRecording(readJsonFile(options.results))) : nodeTools(options.tools, io.env);
  let mcp: CliMcp | null = null;
  try {
    if (options.mcp.length > 0) mcp = await connectMcp(options.mcp, base, io);
    const live = mcp;
    const events = await collect(
      runAgent({
        engine,
        tokenizer: loadTokenizer(),
        tools: live ? await live.tools() : base,
        ...(live ? { refreshTools: () => live.tools() } : {}),
        conversation: { messages: [{ role: 'user', content: options.question }] },
        sampling: { temperature: 0 },
        confirm: async () => true,
        model: engine.model,
        contextPolicy: options.contextPolicy,
      }),
    );
    const error = ofType(events, 'error')[0];
    if (error) throw new CliError(`${error.error.code}: ${error.error.message}`);
    const finish = ofType(events, 'finish')[0]!;
    printJson(io, { answer: finish.text, finish: finish.reason, steps: stepsOf(events), ...(mcp ? { mcp: await mcp.report() } : {}) });
  } finally {
    await mcp?.close();
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

function readOptions(args: string[], env: NodeJS.ProcessEnv): { model: ModelRef; results?: string; question: string; tools: NodeToolOptions; mcp: McpServerSpec[]; contextPolicy: ContextPolicy } {
  const { values, positionals } = parseCliArgs(args, { ...MODEL_FLAGS, ...MCP_FLAGS, results: { type: 'string' }, tools: { type: 'string' }, docs: { type: 'string' }, 'context-policy': { type: 'string' } });
  const contextPolicy = parseContextPolicy(values['context-policy'] ?? 'rolling');
  if (!contextPolicy) throw new CliError(`--context-policy: expected ${CONTEXT_POLICIES.join(', ')}, got "${values['context-policy']}"`);
  const results = values.results;
  const question = positionals.join(' ').trim();
  if (!question) throw new CliError('missing the question');
  const provider = parseToolProvider(values.tools ?? 'auto');
  if (!provider) throw new CliError(`--tools: expected ${TOOL_PROVIDERS.join(', ')}, got "${values.tools}"`);
  if (values.docs !== undefined && !statSync(values.docs, { throwIfNoEntry: false })?.isDirectory()) throw new CliError(`--docs: ${values.docs} is not a directory`);
  const tools: NodeToolOptions = { provider, ...(values.docs ? { docsDir: values.docs } : {}) };
  return { model: cliModelRef(values, 'micro'), question, tools, mcp: mcpServerSpecs(values, env), contextPolicy, ...(results ? { results } : {}) };
}
