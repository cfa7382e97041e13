/**
 * What the model reads when an MCP server fails (ipython error results). These are not in
 * failure-texts.ts's FAILURE_TEXTS: the micro model's corpus trains those, and an MCP server's
 * failures are, like a host tool's own errors, text the model meets untrained.
 */
export const MCP_TEXTS = {
  notConnected: (server: string, why: string) => `the MCP server ${server} is not connected: ${why}`,
  disconnected: (server: string, why: string) => `the MCP server ${server} disconnected during the call: ${why}`,
  callFailed: (server: string, why: string) => `the MCP server ${server} failed the call: ${why}`,
  errorWithoutText: () => 'the tool reported an error without saying why',
} as const;
