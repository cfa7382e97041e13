/** Command-line flags through node:util's parseArgs: an unknown or malformed flag is a CliError (exit 2). */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './cli-error';

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseCliArgs<O extends Options>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new CliError(e instanceof Error ? e.message.split('\n')[0]! : String(e));
  }
}
