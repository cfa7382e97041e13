import { readFileSync } from 'node:fs';
import { CliError } from './cli-error';

/** What a command reads and writes besides files: the process's streams and environment, or a test's. */
export interface CliIo {
  /** All of stdin as UTF-8 text, exactly (no trimming). */
  readStdin(): Promise<string>;
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
}

export const processIo: CliIo = {
  async readStdin() {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  env: process.env,
};

/** A JSON file's value, or a CliError naming the file and what is wrong with it. */
export function readJsonFile(path: string | undefined): unknown {
  if (!path) throw new CliError('missing FILE argument');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CliError(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new CliError(`${path}: not valid JSON (${(e as Error).message})`);
  }
}

export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value)}\n`);
}
