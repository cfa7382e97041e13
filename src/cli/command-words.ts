/**
 * A command line as the words a shell would pass (`--mcp-stdio "npx -y server --root '/my files'"`):
 * split at unquoted whitespace; '…' keeps everything literally, "…" keeps everything but `\"` and `\\`,
 * and a backslash outside quotes keeps the next character. Nothing is expanded ($VAR, globs, ~).
 * An unclosed quote, a trailing backslash or no words at all is a CliError.
 */
import { CliError } from './cli-error';

export function commandWords(line: string, flag: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (/\s/.test(c)) {
      if (word !== null) words.push(word), (word = null);
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new CliError(`${flag}: unclosed ' in ${JSON.stringify(line)}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      word ??= '';
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) i++;
        word += line[i];
      }
      if (i >= line.length) throw new CliError(`${flag}: unclosed " in ${JSON.stringify(line)}`);
    } else if (c === '\\') {
      if (i + 1 >= line.length) throw new CliError(`${flag}: a command cannot end with \\`);
      word = (word ?? '') + line[++i];
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== null) words.push(word);
  if (words.length === 0) throw new CliError(`${flag}: expected a command, got ${JSON.stringify(line)}`);
  return words;
}
