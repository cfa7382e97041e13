import { describe, expect, it } from 'vitest';
import { CliError } from './cli-error';
import { commandWords } from './command-words';

describe('a command line as words', () => {
  it('splits at unquoted whitespace and keeps quoted text, expanding nothing', () => {
    expect(commandWords('npx -y server --root "/my files" \'$HOME\' a\\ b', '--mcp-stdio')).toEqual(['npx', '-y', 'server', '--root', '/my files', '$HOME', 'a b']);
    expect(commandWords('  node  "say \\"hi\\"" x"y"z ', '--mcp-stdio')).toEqual(['node', 'say "hi"', 'xyz']);
    expect(commandWords('run ""', '--mcp-stdio')).toEqual(['run', '']);
  });

  it('refuses an unclosed quote, a trailing backslash or an empty line, naming the flag', () => {
    expect(() => commandWords('node "x', '--mcp-stdio')).toThrow(new CliError('--mcp-stdio: unclosed " in "node \\"x"'));
    expect(() => commandWords("node 'x", '--mcp-stdio')).toThrow("--mcp-stdio: unclosed ' in");
    expect(() => commandWords('node \\', '--mcp-stdio')).toThrow('--mcp-stdio: a command cannot end with \\');
    expect(() => commandWords('   ', '--mcp-stdio')).toThrow('--mcp-stdio: expected a command, got "   "');
  });
});
