/**
 * An MCP server run as a process over stdio (the SDK's StdioClientTransport): Node only, so it lives
 * with the CLI. The process gets the SDK's default environment (PATH, HOME and the like, no secrets
 * of ours) and is ended when the connection closes.
 */
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { McpServerSpec } from '../tools/mcp/mcp-connection';
import { commandWords } from './command-words';

export interface StdioServerOptions {
  prefix?: string;
  trustReadOnly?: boolean;
  /** The server's own log lines: shown on our stderr (default) or dropped. */
  stderr?: 'inherit' | 'ignore';
  cwd?: string;
}

/** `commandLine` split as command-words.ts says; the label is the line as given. */
export function mcpStdioServer(commandLine: string, o: StdioServerOptions = {}): McpServerSpec {
  const [command, ...args] = commandWords(commandLine, '--mcp-stdio');
  return {
    label: commandLine.trim(),
    transport: () => new StdioClientTransport({ command: command!, args, stderr: o.stderr ?? 'inherit', ...(o.cwd ? { cwd: o.cwd } : {}) }),
    ...(o.prefix ? { prefix: o.prefix } : {}),
    ...(o.trustReadOnly ? { trustReadOnly: true } : {}),
  };
}
