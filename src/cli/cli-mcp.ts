/**
 * The CLI's MCP servers: `--mcp URL` (Streamable HTTP, repeatable; the environment's MCP_TOKEN, when
 * set, is sent to each as a bearer token and never printed) and `--mcp-stdio "COMMAND"` (a process,
 * repeatable). A server that cannot connect, and any tool refused for its name, is reported on stderr
 * and in the answer's `mcp` field; the run goes on with the tools that are there.
 */
import { McpServers } from '../tools/mcp/mcp-servers';
import { McpUrlError, mcpServerUrl, mcpUrlLabel, streamableHttpTransport } from '../tools/mcp/mcp-http';
import type { McpServerSpec } from '../tools/mcp/mcp-connection';
import type { Tool } from '../tools/tool';
import { CliError } from './cli-error';
import type { CliIo } from './io';
import { mcpStdioServer } from './mcp-stdio';

export const MCP_FLAGS = { mcp: { type: 'string', multiple: true }, 'mcp-stdio': { type: 'string', multiple: true } } as const;

/** The servers the flags name, checked (a bad URL or command line is a CliError); none connected yet. */
export function mcpServerSpecs(values: { mcp?: string[]; 'mcp-stdio'?: string[] }, env: NodeJS.ProcessEnv): McpServerSpec[] {
  const token = env.MCP_TOKEN || undefined;
  const http = (values.mcp ?? []).map((given): McpServerSpec => {
    let url: URL;
    try {
      url = mcpServerUrl(given);
    } catch (e) {
      throw e instanceof McpUrlError ? new CliError(`--mcp: ${e.message}`) : e;
    }
    return { label: mcpUrlLabel(url), transport: streamableHttpTransport(url, token) };
  });
  return [...http, ...(values['mcp-stdio'] ?? []).map((line) => mcpStdioServer(line))];
}

/** What the answer says about each server: its state, why it failed, its tools, those refused. */
export interface McpReport {
  server: string;
  state: string;
  error?: string;
  tools: string[];
  refused: Array<{ name: string; reason: string }>;
}

export interface CliMcp {
  /** `base` and every server's tools, as they are now (a run reads it before each step). */
  tools(): Promise<Tool[]>;
  report(): Promise<McpReport[]>;
  close(): Promise<void>;
}

export async function connectMcp(specs: McpServerSpec[], base: readonly Tool[], io: CliIo): Promise<CliMcp> {
  const servers = new McpServers();
  for (const spec of specs) await servers.add(spec);
  const names = base.map((t) => t.name);
  const current = async () => servers.tools(names);
  for (const c of servers.all) if (c.lastError) io.stderr(`MCP server ${c.spec.label}: ${c.lastError}\n`);
  for (const r of (await current()).refused) io.stderr(`MCP server ${r.server}: tool ${r.name} not offered: ${r.reason}\n`);
  return {
    tools: async () => [...base, ...(await current()).tools],
    async report() {
      const { tools, refused } = await current();
      return servers.all.map((c) => ({
        server: c.spec.label,
        state: c.state,
        ...(c.lastError ? { error: c.lastError } : {}),
        tools: tools.filter((t) => mcpServerOf(t) === c).map((t) => t.name),
        refused: refused.filter((r) => r.server === c.spec.label).map(({ name, reason }) => ({ name, reason })),
      }));
    },
    close: () => servers.close(),
  };

  function mcpServerOf(tool: Tool) {
    return servers.all.find((c) => c.owns(tool));
  }
}
