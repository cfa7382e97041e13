/** The assets command's arguments: `copy DIR [--micro]`; anything else is an error that says what is expected. */
import { parseArgs } from 'node:util';

export const ASSETS_USAGE = `usage: llama-agent-assets copy DIR [--micro]
  Writes DIR/ort/ (onnxruntime-web's WASM), DIR/pyodide/ (Python), DIR/models/llama-3.1-tokenizer/ and
  DIR/local-search/ (the local search's demo corpus); --micro also builds the micro demo model into
  DIR/models/micro-llama/ (about 110 MB). Serve DIR and pass its URL as the engine's \`assets\`.`;

export interface AssetsCommand {
  dir: string;
  micro: boolean;
}

export class AssetsUsageError extends Error {
  override name = 'AssetsUsageError';
}

export function parseAssetsArgs(args: readonly string[]): AssetsCommand {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], allowPositionals: true, options: { micro: { type: 'boolean', default: false } } });
  } catch (e) {
    throw new AssetsUsageError((e as Error).message);
  }
  const [command, dir, ...rest] = parsed.positionals;
  if (command !== 'copy') throw new AssetsUsageError(command === undefined ? 'missing the command (copy)' : `unknown command "${command}" (expected copy)`);
  if (!dir) throw new AssetsUsageError('copy: missing the target folder');
  if (rest.length) throw new AssetsUsageError(`copy: one folder expected, got ${[dir, ...rest].join(' ')}`);
  return { dir, micro: parsed.values.micro === true };
}
