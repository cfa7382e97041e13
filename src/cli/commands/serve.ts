import { isIP } from 'node:net';
import { loadTokenizer } from '../../format/tokenizer/load-node';
import { createApiServer, DEFAULT_MAX_QUEUED } from '../../server/api/api-server';
import { LOOPBACK_HOSTS } from '../../server/api/request-guards';
import { isLoopback } from '../../server/local-gate';
import { createNodeEngine } from '../../../worker/create-node-engine';
import { MAX_SLOTS } from '../../../worker/engine';
import { parseCliArgs } from '../args';
import { CliError } from '../cli-error';
import type { CliIo } from '../io';
import { resolveModelId } from '../model-id';

/**
 * `serve [--port N] [--host H] [--allowed-host NAME]... [--model ID|micro] [--api-key KEY] [--slots N] [--max-queue N]`:
 * the OpenAI-compatible server on the in-process engine (default the micro model, on 127.0.0.1:8080;
 * `--port 0` picks a free port). The engine keeps --slots KV caches (default 4): that many
 * conversations keep their cache and generate at once, step by step in turn; more wait, up to
 * --max-queue, beyond which a request is a 503 with Retry-After. Binding elsewhere than loopback takes an explicit --host. On every
 * bind the Host header must name loopback (127.0.0.1, ::1, localhost), the bound host itself, or an
 * --allowed-host (DNS rebinding is refused). The bearer key comes from --api-key or LLAMA_API_KEY
 * (the environment keeps it out of the process list); serving beyond loopback (127.0.0.0/8, ::1,
 * localhost) without one is warned about. Prints one line with the URL.
 */
export async function serve(args: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseCliArgs(args, {
    port: { type: 'string', default: '8080' },
    host: { type: 'string', default: '127.0.0.1' },
    model: { type: 'string', default: 'micro' },
    'api-key': { type: 'string' },
    'allowed-host': { type: 'string', multiple: true, default: [] },
    'max-queue': { type: 'string', default: String(DEFAULT_MAX_QUEUED) },
    slots: { type: 'string', default: String(DEFAULT_SLOTS) },
  });
  if (positionals.length > 0) throw new CliError(`unexpected argument "${positionals[0]}"`);
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port ?? '') || port > 65535) throw new CliError(`--port: expected 0 to 65535, got "${values.port}"`);
  const host = values.host ?? '127.0.0.1';
  const apiKey = values['api-key'] ?? io.env.LLAMA_API_KEY;
  if (apiKey === '') throw new CliError('the API key is empty');
  const modelId = resolveModelId(values.model);
  const maxQueued = Number(values['max-queue']);
  if (!/^\d+$/.test(values['max-queue'] ?? '')) throw new CliError(`--max-queue: expected a whole number, got "${values['max-queue']}"`);
  const slots = Number(values.slots);
  if (!/^\d+$/.test(values.slots ?? '') || slots < 1 || slots > MAX_SLOTS) throw new CliError(`--slots: expected 1 to ${MAX_SLOTS}, got "${values.slots}"`);

  const engine = createNodeEngine();
  await engine.load(modelId, { slots });
  const loopback = host === 'localhost' || isLoopback(host);
  const listed = (values['allowed-host'] ?? []).map(hostName);
  const bad = listed.find((h) => !/^[a-z0-9.-]+$|^[0-9a-f:.]+$/.test(h));
  if (bad !== undefined) throw new CliError(`--allowed-host: expected a host name or IP address without a port, got "${bad}"`);
  const allowedHosts = [...new Set([...LOOPBACK_HOSTS, hostName(host), ...listed])];
  const server = createApiServer({ engine, tokenizer: loadTokenizer(), allowedHosts, maxQueued, ...(apiKey ? { apiKey } : {}) });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new CliError(`cannot listen on ${host}:${port} (${e.code ?? e.message})`)));
    server.listen(port, host, resolve);
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const shown = isIP(host) === 6 ? `[${host}]` : host;
  if (!loopback && !apiKey) io.stderr(`warning: serving ${host} without an API key: anyone who can reach it can use the model\n`);
  io.stdout(`serving ${modelId} at http://${shown}:${bound}/v1\n`);

  const stop = () => {
    server.close();
    server.closeAllConnections();
    void engine.unload();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/**
 * KV caches `serve` keeps by default: four conversations at once. Each may hold a whole context window
 * (the micro and tiny models' are small; an 8B model's 8,192-token cache is 1 GiB in F16, allocated
 * up front by node-llama-cpp), so lower it for a large model on a small machine.
 */
export const DEFAULT_SLOTS = 4;

/** A host as the Host check compares it: lowercase, an IPv6 address without brackets. */
function hostName(host: string): string {
  return host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
}
