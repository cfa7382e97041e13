/**
 * Streamable HTTP transports (the page, the widget and Node): the server's URL as given (http or https
 * only) and, when the user gives one, a bearer token sent as the Authorization header. The token lives
 * only in the transport's request headers: labels and errors name the URL without its query or
 * credentials.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

export class McpUrlError extends Error {
  override readonly name = 'McpUrlError';
}

/** The server's URL, checked: absolute, http or https, no user:password part. */
export function mcpServerUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new McpUrlError(`an MCP server URL must be absolute (https://host/mcp), got ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new McpUrlError(`an MCP server URL must be http or https, got ${parsed.protocol}`);
  if (parsed.username || parsed.password) throw new McpUrlError('an MCP server URL must not hold a user name or password: give a bearer token instead');
  return parsed;
}

/** What the server is called in the UI and in errors: origin and path (a query may hold a secret). */
export function mcpUrlLabel(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** The transport factory for an McpServerSpec (the SDK is loaded with the first connection: mcp-sdk.ts). */
export function streamableHttpTransport(url: URL, bearerToken?: string): () => Promise<Transport> {
  const headers: Record<string, string> = bearerToken ? { Authorization: `Bearer ${bearerToken}` } : {};
  // No reconnection of a broken stream: a server gone mid-call should fail the call, not hang it.
  return async () => new (await import('./mcp-sdk')).StreamableHTTPClientTransport(url, { requestInit: { headers }, reconnectionOptions: { maxReconnectionDelay: 1000, initialReconnectionDelay: 100, reconnectionDelayGrowFactor: 1, maxRetries: 0 } });
}
