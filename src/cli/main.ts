/**
 * The project's CLI as a process: `npm run -s cli -- <command>` (the commands: run-cli.ts).
 */
import { runCli } from './run-cli';

void runCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
