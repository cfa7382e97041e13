/**
 * The MCP servers of one agent (the CLI's flags, the page's settings, the widget's attribute and API),
 * and the tools they offer together.
 *
 * Names never collide: a tool whose model-facing name is already taken — by a built-in, a host tool
 * (`taken`), or a server added earlier — is refused, and the refusal says by whom and how to fix it
 * (give that server a prefix). The first one keeps the name: what a run offered does not change
 * meaning when a later server lists the same name.
 */
import type { Tool } from '../tool';
import { McpConnection, type McpServerSpec, type RefusedMcpTool } from './mcp-connection';

export interface McpToolList {
  tools: Tool[];
  refused: RefusedMcpTool[];
}

export class McpServers {
  private readonly connections: McpConnection[] = [];

  /** `onChange`: a server's tool list or state changed (a run reads `tools()` again before its next step). */
  constructor(private readonly onChange: () => void = () => {}) {}

  get all(): readonly McpConnection[] {
    return this.connections;
  }

  /**
   * Adds a server and connects it. A server that cannot connect is kept (state `failed`, lastError)
   * and the returned promise resolves all the same: its tools are simply absent.
   */
  async add(spec: McpServerSpec): Promise<McpConnection> {
    if (this.connections.some((c) => c.spec.label === spec.label && c.spec.prefix === spec.prefix)) {
      throw new Error(`the MCP server ${spec.label} is already added`);
    }
    const connection = new McpConnection(spec, this.onChange);
    this.connections.push(connection);
    await connection.connect().catch(() => {});
    return connection;
  }

  async remove(connection: McpConnection): Promise<void> {
    const i = this.connections.indexOf(connection);
    if (i < 0) return;
    this.connections.splice(i, 1);
    await connection.close();
    this.onChange();
  }

  /** Every offered tool, in the order the servers were added; `taken`: names other tools of the run hold. */
  async tools(taken: Iterable<string> = []): Promise<McpToolList> {
    const owner = new Map<string, string>([...taken].map((n) => [n, 'another tool of this agent']));
    const out: McpToolList = { tools: [], refused: [] };
    for (const connection of this.connections) {
      const { tools, refused } = await connection.tools();
      out.refused.push(...refused);
      for (const tool of tools) {
        const holder = owner.get(tool.name);
        if (holder !== undefined) {
          out.refused.push({ server: connection.spec.label, name: tool.name, reason: `the name "${tool.name}" is taken by ${holder}: give ${connection.spec.label} a prefix` });
          continue;
        }
        owner.set(tool.name, `the MCP server ${connection.spec.label}`);
        out.tools.push(tool);
      }
    }
    return out;
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.splice(0).map((c) => c.close()));
  }
}
