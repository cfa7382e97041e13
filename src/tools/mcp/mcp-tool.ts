/**
 * One tool listed by an MCP server → a custom tool the model can call (Llama 3.1's custom JSON format).
 *
 * - Name: the server's name with every character outside [A-Za-z0-9_] written as `_` (Llama 3.1's
 *   custom tools are function names), after the server's prefix when it has one (`prefix_name`).
 * - Description: the tool's description, else its title, else its name.
 * - Parameters: the tool's input schema (the argument check, the prompt's custom-tools block and, with
 *   constrained decoding, the grammar all read it), less a `$schema` naming draft-07: the checker's
 *   default dialect, so it changes nothing but the tokens the prompt spends on every tool.
 * - Confirmation (mcpNeedsConfirmation): annotations are hints from the server, so the user is asked
 *   unless they allowed read-only tools to run (`trustReadOnly`) and the tool says it only reads
 *   (`readOnlyHint: true`) in a closed world (`openWorldHint: false`; the spec's default is true) and
 *   is not destructive. `destructiveHint` or `openWorldHint` tools always ask.
 * - defineCustomTool checks the definition (a bad name or schema throws CustomToolDefinitionError)
 *   and every call's arguments before the server sees them.
 */
import { defineCustomTool } from '../custom-tool';
import type { Tool } from '../tool';
import { mcpResultValue, type McpCallResult } from './mcp-result';

export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A tool as tools/list returns it (the fields read here). */
export interface McpListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: McpToolAnnotations;
}

export interface McpToolOptions {
  /** Who serves it, for the tool card (never shown to the model). */
  serverLabel: string;
  /** Written before the name with `_`; empty or absent: the name alone. */
  prefix?: string;
  /** The user allowed tools that declare themselves read-only to run without asking. */
  trustReadOnly?: boolean;
  /** Sends tools/call with the server's own tool name. */
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult>;
}

export function mcpNeedsConfirmation(annotations: McpToolAnnotations | undefined, trustReadOnly: boolean): boolean {
  const a = annotations ?? {};
  if (!trustReadOnly || a.readOnlyHint !== true) return true;
  return a.destructiveHint === true || a.openWorldHint !== false;
}

/** The name the model calls: `get-sum` → `get_sum`, with prefix `everything` → `everything_get_sum`. */
export function modelToolName(mcpName: string, prefix?: string): string {
  const name = mcpName.replace(/[^A-Za-z0-9_]/g, '_');
  return prefix ? `${prefix}_${name}` : /^[0-9]/.test(name) ? `_${name}` : name;
}

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;

function withoutDefaultDialect(schema: Record<string, unknown>): Record<string, unknown> {
  if (typeof schema?.$schema !== 'string' || !DRAFT_07.test(schema.$schema)) return schema;
  const { $schema: _, ...rest } = schema;
  return rest;
}

export function mcpTool(listed: McpListedTool, o: McpToolOptions): Tool {
  const description = [listed.description, listed.title, listed.annotations?.title].find((d) => typeof d === 'string' && d.trim() !== '') ?? listed.name;
  return defineCustomTool({
    name: modelToolName(listed.name, o.prefix),
    description,
    parameters: withoutDefaultDialect(listed.inputSchema),
    needsConfirmation: mcpNeedsConfirmation(listed.annotations, o.trustReadOnly ?? false),
    async execute(args, context) {
      context.reportSource?.(`MCP: ${o.serverLabel}`);
      return mcpResultValue(await o.call(listed.name, args, context.signal));
    },
  });
}
