/**
 * A real llama-server for tests: the binary this machine built from node-llama-cpp's llama.cpp source
 * (scripts/llama-server/: the `llama-server` tier's setup or .ci/run builds it, and `start` builds it
 * first when this machine has none), on 127.0.0.1 at a free port, offline, one slot. `start` resolves once /health answers 200; `kill` ends it the way a
 * crash would (SIGKILL); `restart` brings a fresh one up on the same port, so a client's URL stays valid.
 *
 * Invariant: every process started here is stopped by `stop()` (tests call it in afterAll), and a
 * failure to start rejects with the server's last output rather than hanging.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { ensureLlamaServer } from '../../scripts/llama-server/llama-server-build';
import { ggufPath } from '../../scripts/setup/gguf-models';

export interface LlamaServerOptions {
  /** Default: the micro model's F32 GGUF. */
  model?: string;
  /** Context size (-c). Default 1024, the micro model's trained context. */
  contextSize?: number;
  /** Threads (-t, -tb). Default 1: llama.cpp's spinning thread barrier turns milliseconds per token into
   *  hundreds when the 2 cores are shared with other test processes; the micro model needs no more. */
  threads?: number;
  /** Extra command-line arguments. */
  args?: readonly string[];
}

export interface LlamaServer {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  /** SIGKILL, as a crash; resolves when the process is gone. */
  kill(): Promise<void>;
  /** A new process on the same port (after kill or stop). */
  restart(): Promise<void>;
  /** SIGTERM (SIGKILL after 5 s); resolves when the process is gone. Idempotent. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;

let binary: Promise<string> | undefined;

/** This machine's llama-server, built once when it has none (the build holds a lock across processes). */
export function llamaServerBinary(): Promise<string> {
  binary ??= ensureLlamaServer((line) => console.log(line));
  return binary;
}

export async function startLlamaServer(options: LlamaServerOptions = {}): Promise<LlamaServer> {
  const binaryPath = await llamaServerBinary();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = [
    '-m', options.model ?? ggufPath('micro-llama', 'F32'),
    '--host', '127.0.0.1', '--port', String(port),
    '--offline', '--no-webui', '-np', '1', '-c', String(options.contextSize ?? 1024),
    '-t', String(options.threads ?? 1), '-tb', String(options.threads ?? 1),
    ...(options.args ?? []),
  ];
  let child: ChildProcess | null = await launch(binaryPath, url, args);
  const stopWith = async (signal: NodeJS.Signals) => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    c.kill(signal);
    const timer = setTimeout(() => c.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(timer);
  };
  return {
    url,
    port,
    kill: () => stopWith('SIGKILL'),
    stop: () => stopWith('SIGTERM'),
    restart: async () => {
      await stopWith('SIGTERM');
      child = await launch(binaryPath, url, args);
    },
  };
}

/** Spawns the server and waits for /health; rejects with its output if it exits or times out. */
async function launch(binaryPath: string, url: string, args: readonly string[]): Promise<ChildProcess> {
  const child = spawn(binaryPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (b: Buffer) => {
    output = (output + b.toString('utf8')).slice(-4000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`llama-server exited while starting:\n${output}`);
    const ok = await fetch(`${url}/health`).then((r) => r.status === 200, () => false);
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`llama-server did not become healthy within ${START_TIMEOUT_MS / 1000} s:\n${output}`);
}

/** A port the OS just handed out on 127.0.0.1 (then released for the server to bind). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
