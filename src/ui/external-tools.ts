/**
 * Tools from outside the engine's own set, for the page and the widget: MCP servers over Streamable
 * HTTP and, in the widget when the host opts in, the host page's WebMCP tools. A run reads `tools()`
 * before every step, so a server's list_changed and a WebMCP tool the host unregistered take effect at
 * the next step.
 *
 * Invariant: a server's URL is fixed when it is added (by the user in Settings, by the host page's
 * attribute or API); nothing the model emits reaches it — a call carries only the tool's arguments.
 */
import type { McpConnection } from '../tools/mcp/mcp-connection';
import { mcpServerUrl, mcpUrlLabel, streamableHttpTransport } from '../tools/mcp/mcp-http';
import { McpServers } from '../tools/mcp/mcp-servers';
import type { Tool } from '../tools/tool';
import { WebMcpTools, type ModelContextLike } from '../tools/webmcp/webmcp-tools';

export interface HttpServerOptions {
  /** Sent as `Authorization: Bearer …`; kept in memory only, never shown or logged. */
  bearerToken?: string;
  prefix?: string;
  trustReadOnly?: boolean;
}

export class ExternalTools {
  readonly mcp: McpServers;
  private webMcp: WebMcpTools | null = null;

  constructor(onChange: () => void = () => {}) {
    this.mcp = new McpServers(onChange);
  }

  /** Offers the tools of `context` (document.modelContext), or stops offering them (null). */
  useWebMcp(context: ModelContextLike | null): void {
    this.webMcp = context ? new WebMcpTools(context) : null;
  }

  /** Adds and connects a Streamable HTTP server (a bad URL throws McpUrlError; a failed connection is kept as `failed`). */
  addHttpServer(url: string, o: HttpServerOptions = {}): Promise<McpConnection> {
    const fixed = mcpServerUrl(url);
    return this.mcp.add({
      label: mcpUrlLabel(fixed),
      transport: streamableHttpTransport(new URL(fixed.href), o.bearerToken),
      ...(o.prefix ? { prefix: o.prefix } : {}),
      ...(o.trustReadOnly ? { trustReadOnly: true } : {}),
    });
  }

  /** The servers' origins (a host page's connect-src must allow them). */
  get origins(): string[] {
    return [...new Set(this.mcp.all.map((c) => new URL(c.spec.label).origin))];
  }

  /** `base`, then the MCP servers' tools `enabled` keeps, then the WebMCP tools; no name twice. */
  async tools(base: readonly Tool[], enabled: (server: string, tool: string) => boolean = () => true): Promise<Tool[]> {
    const names = new Set(base.map((t) => t.name));
    const mcp = (await this.mcp.tools(names)).tools.filter((t) => enabled(this.serverOf(t) ?? '', t.name));
    for (const t of mcp) names.add(t.name);
    const webMcp = this.webMcp ? await this.webMcp.tools(names) : [];
    return [...base, ...mcp, ...webMcp];
  }

  /** The label of the server that offers `tool`. */
  serverOf(tool: Tool): string | undefined {
    return this.mcp.all.find((c) => c.owns(tool))?.spec.label;
  }

  close(): Promise<void> {
    return this.mcp.close();
  }
}
