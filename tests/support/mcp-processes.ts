/**
 * MCP servers as processes for the tests: @modelcontextprotocol/server-everything over Streamable
 * HTTP (startEverythingOverHttp) and the command lines that start it, and the tests' own server
 * (mcp-test-server.ts), over stdio.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** `node …/server-everything/dist/index.js stdio`, quoted for commandWords. */
export const EVERYTHING_STDIO = `"${process.execPath}" "${EVERYTHING}" stdio`;
/** The tests' server over stdio (its `die` tool exits the process). */
export const TEST_SERVER_STDIO = `"${process.execPath}" --import tsx "${join(ROOT, 'tests/support/mcp-test-server-stdio.ts')}"`;

export interface EverythingProcess {
  url: string;
  process: ChildProcess;
  stop(): void;
}

export async function startEverythingOverHttp(): Promise<EverythingProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(`listening on port ${port}`)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}) before listening: ${seen}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, process: child, stop: () => void child.kill() };
}

/** A port nothing listens on (as this instant). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
