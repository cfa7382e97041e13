/**
 * One MCP server, through the official SDK's Client: connects, lists its tools (every page), keeps the
 * list current on `notifications/tools/list_changed`, and sends calls.
 *
 * Invariants:
 * - A failure never escapes as anything but a ToolError the model can read: a server that cannot be
 *   reached (`notConnected`), one whose connection closes while a call waits (`disconnected`), one that
 *   answers a call with a JSON-RPC error (`callFailed`). The caller's abort is rethrown as is.
 * - A lost connection is tried again once, at the next call.
 * - `tools()` waits for a refresh that a list_changed started, so a run that reads it between steps
 *   sees the server's new list. A server that announces list changes (`tools.listChanged`) may send the
 *   notification on another stream than a call's answer, so after a call to it `tools()` lists its tools
 *   again before answering: a tool a call added is there at the run's next step.
 * - Output schemas are checked with @cfworker/json-schema (no eval: the widget runs under a strict CSP).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isAbortError } from '../../engine/errors';
import { CustomToolDefinitionError } from '../custom-tool';
import { ToolError, type Tool } from '../tool';
import type { McpCallResult } from './mcp-result';
import { MCP_TEXTS } from './mcp-texts';
import { mcpTool, type McpListedTool } from './mcp-tool';

export interface McpServerSpec {
  /** How the user and the tool cards name the server (its URL without query, or its command); never a token. */
  label: string;
  /** A new transport for each connection attempt. */
  transport: () => Transport | Promise<Transport>;
  /** Written before each tool's name (`prefix_name`). */
  prefix?: string;
  /** Read-only, closed-world tools run without asking (mcp-tool.ts). */
  trustReadOnly?: boolean;
  /** Connecting and listing, each (default 10 s). */
  timeoutMs?: number;
}

export type McpConnectionState = 'new' | 'connected' | 'failed' | 'lost' | 'closed';

/** A listed tool that is not offered to the model, and why. */
export interface RefusedMcpTool {
  server: string;
  name: string;
  reason: string;
}

const CLIENT_INFO = { name: 'llama-agent-web', version: '0.1.0' };
const DEFAULT_TIMEOUT_MS = 10_000;
/** How the SDK's Streamable HTTP transport reports a stream it could not keep or resume. */
const STREAM_LOST = /^(SSE stream disconnected|Maximum reconnection attempts|Failed to reconnect)/;

export class McpConnection {
  private client: Client | null = null;
  private listed: McpListedTool[] = [];
  private built: { tools: Tool[]; refused: RefusedMcpTool[] } | null = null;
  private refreshing: Promise<void> | null = null;
  private reconnecting: Promise<void> | null = null;
  private sdk: McpSdk | null = null;
  /** A call ran since the last listing, on a server that announces list changes. */
  private calledSinceListing = false;
  state: McpConnectionState = 'new';
  /** Why the last connection, listing or refresh failed. */
  lastError: string | null = null;

  constructor(
    readonly spec: McpServerSpec,
    /** Told when the tool list or the state changed. */
    private readonly onChange: () => void = () => {},
  ) {}

  /** Connects and lists the tools; throws a ToolError (`notConnected`) when it cannot. */
  async connect(): Promise<void> {
    const timeout = this.spec.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let sdk: McpSdk;
    try {
      sdk = this.sdk ??= await import('./mcp-sdk');
    } catch (e) {
      this.state = 'failed';
      this.lastError = `the MCP client could not be loaded: ${messageOf(e, null)}`;
      this.onChange();
      throw new ToolError(MCP_TEXTS.notConnected(this.spec.label, this.lastError));
    }
    const client = new sdk.Client(CLIENT_INFO, {
      capabilities: {},
      jsonSchemaValidator: new sdk.CfWorkerJsonSchemaValidator(),
      listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => this.refresh() } },
    });
    client.onclose = () => this.lose(client, 'the connection closed');
    // A Streamable HTTP stream that broke for good leaves the calls on it waiting: end the connection so they fail now.
    client.onerror = (e) => {
      if (STREAM_LOST.test(e.message)) this.lose(client, e.message);
    };
    try {
      await client.connect(await this.spec.transport(), { timeout });
      this.setListed(await listAll(client, timeout));
      this.client = client;
      this.state = 'connected';
      this.lastError = null;
    } catch (e) {
      await client.close().catch(() => {});
      this.state = 'failed';
      this.lastError = messageOf(e, sdk);
      throw new ToolError(MCP_TEXTS.notConnected(this.spec.label, this.lastError));
    } finally {
      this.onChange();
    }
  }

  /** The offered tools (after any refresh in flight) and the ones refused, with why. */
  async tools(): Promise<{ tools: Tool[]; refused: RefusedMcpTool[] }> {
    if (this.calledSinceListing && this.client) {
      this.calledSinceListing = false;
      this.refresh();
    }
    await this.refreshing;
    return (this.built ??= this.build());
  }

  /** Whether `tool` is one of the tools this server offers now. */
  owns(tool: Tool): boolean {
    return this.built?.tools.includes(tool) ?? false;
  }

  /** tools/call with the server's own tool name; failures as described above. */
  async call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> {
    if (!this.client) await (this.reconnecting ??= this.connect().finally(() => (this.reconnecting = null)));
    const client = this.client!;
    if (client.getServerCapabilities()?.tools?.listChanged) this.calledSinceListing = true;
    try {
      return (await client.callTool({ name, arguments: args }, undefined, { signal })) as McpCallResult;
    } catch (e) {
      if (signal.aborted || isAbortError(e)) throw e;
      const { McpError, ErrorCode } = this.sdk!;
      const why = messageOf(e, this.sdk);
      // The server's own JSON-RPC error; anything else (the connection closed, fetch failed) lost the connection.
      if (e instanceof McpError && e.code !== ErrorCode.ConnectionClosed) throw new ToolError(MCP_TEXTS.callFailed(this.spec.label, why));
      this.lose(client, why);
      throw new ToolError(MCP_TEXTS.disconnected(this.spec.label, why));
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.state = 'closed';
    await client?.close().catch(() => {});
  }

  private lose(client: Client, why: string): void {
    if (this.client !== client) return;
    this.client = null;
    this.state = 'lost';
    this.lastError = why;
    void client.close().catch(() => {});
    this.onChange();
  }

  private refresh(): void {
    const client = this.client;
    if (!client) return;
    const run = listAll(client, this.spec.timeoutMs ?? DEFAULT_TIMEOUT_MS).then(
      (tools) => this.setListed(tools),
      (e: unknown) => void (this.lastError = `the tool list could not be refreshed: ${messageOf(e, this.sdk)}`),
    );
    this.refreshing = run.finally(() => {
      if (this.refreshing === run) this.refreshing = null;
      this.onChange();
    });
  }

  private setListed(tools: McpListedTool[]): void {
    this.listed = tools;
    this.built = null;
  }

  private build(): { tools: Tool[]; refused: RefusedMcpTool[] } {
    const tools: Tool[] = [];
    const refused: RefusedMcpTool[] = [];
    for (const listed of this.listed) {
      try {
        tools.push(mcpTool(listed, { serverLabel: this.spec.label, prefix: this.spec.prefix, trustReadOnly: this.spec.trustReadOnly, call: (n, a, s) => this.call(n, a, s) }));
      } catch (e) {
        if (!(e instanceof CustomToolDefinitionError)) throw e;
        refused.push({ server: this.spec.label, name: listed.name, reason: e.message });
      }
    }
    return { tools, refused };
  }
}

async function listAll(client: Client, timeout: number): Promise<McpListedTool[]> {
  const out: McpListedTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout });
    out.push(...(page.tools as McpListedTool[]));
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

type McpSdk = typeof import('./mcp-sdk');

function messageOf(e: unknown, sdk: McpSdk | null): string {
  if (sdk && e instanceof sdk.McpError && e.code === sdk.ErrorCode.RequestTimeout) return 'no answer in time';
  if (!(e instanceof Error)) return String(e);
  const code = (e.cause as { code?: unknown } | undefined)?.code;
  const cause = typeof code === 'string' ? code : e.cause instanceof Error ? e.cause.message : undefined;
  return `${e.message || e.name}${cause ? ` (${cause})` : ''}`;
}
