/**
 * The project's CLI: `npm run -s cli -- <command>` (src/cli/main.ts). The contract (commands, output
 * shapes, exit code 2 with a one-line error) is stable: other tools depend on it.
 */
import { FormatError } from '../format/errors';
import { CliError } from './cli-error';
import { processIo, type CliIo } from './io';
import { ask } from './commands/ask';
import { parse } from './commands/parse';
import { render } from './commands/render';
import { replay } from './commands/replay';
import { serve } from './commands/serve';
import { tokenize } from './commands/tokenize';

const COMMANDS: Record<string, (args: string[], io: CliIo) => Promise<void>> = { render, parse, tokenize, replay, ask, serve };

const USAGE = `usage: cli <command>
  render [--ids] FILE   the exact prompt (or its ids) for a conversation file
  parse                 raw model output on stdin -> {content, toolCalls, stop}
  tokenize              stdin as plain content -> token ids
  replay [--model ID|FILE.gguf] [--engine URL] FILE
                        run FILE through the real loop (tiny model, the model's side forced)
                        -> {prompts, steps, toolResults}
  ask [--model ID|micro|FILE.gguf] [--engine URL] [--results FILE] [--tools auto|service|local]
      [--docs DIR] [--mcp URL]... [--mcp-stdio "COMMAND"]...
      [--context-policy rolling|keep-first|stop] "question"
                        the unforced loop in Node (greedy; default the micro model)
                        -> {answer, finish, steps: [{raw, stop, toolCalls, toolResults}]}
  serve [--port N] [--host H] [--allowed-host NAME]... [--model ID|micro] [--api-key KEY] [--slots N]
      [--max-queue N]   the OpenAI-compatible server (default the micro model on 127.0.0.1:8080;
                        the key also from LLAMA_API_KEY) -> prints its URL. Requests must carry
                        a Host of loopback, the --host itself or an --allowed-host (repeatable);
                        --slots KV caches (default 4) serve that many conversations at once, in turn;
                        past N generations waiting (default 32) a completion is a 503 with Retry-After

  --model FILE.gguf     a GGUF on disk, run by node-llama-cpp (our sampler and prefix cache)
  --tools P             who answers brave_search and wolfram_alpha: auto (default: the tool proxy,
                        or on this machine when it has no key or is not running), service, local
                        (the local index over the demo corpus and --docs, and mathjs)
  --docs DIR            .txt and .md files under DIR join the local index
  --mcp URL             an MCP server over Streamable HTTP (repeatable): its tools join the run; the
                        environment variable MCP_TOKEN, when set, is sent to each as a bearer token
  --mcp-stdio "COMMAND" an MCP server started as a process over stdio (repeatable); the answer's
                        \`mcp\` field lists each server's state and tools
  --engine URL          an engine server (vLLM, llama-server): it samples; --model is then the
                        served model's name. Its API key: the environment variable LLAMA_ENGINE_API_KEY`;

/**
 * Runs one command with `io` (the process's by default) and returns its exit code: 0, 2 for bad input
 * (a one-line error on stderr), 1 for anything unexpected (one line too). `serve` resolves once it listens.
 */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  try {
    const [name, ...args] = argv;
    if (!name || name === '--help' || name === '-h') {
      io.stdout(`${USAGE}\n`);
      return 0;
    }
    const command = COMMANDS[name];
    if (!command) throw new CliError(`unknown command "${name}" (try --help)`);
    await command(args, io);
    return 0;
  } catch (e) {
    const known = e instanceof CliError || e instanceof FormatError || e instanceof RangeError;
    const message = e instanceof Error ? e.message : String(e);
    io.stderr(`error: ${(known ? message : `unexpected: ${message}`).replace(/\s*\n\s*/g, ' ')}\n`);
    return known ? 2 : 1;
  }
}
