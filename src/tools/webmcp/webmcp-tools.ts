/**
 * Tools the host page registered with WebMCP (`document.modelContext.registerTool`, native or the
 * @mcp-b/webmcp-polyfill the host loads) as custom tools of the widget's model.
 *
 * - The list is read from `getTools()` each time `tools()` is called (the run asks before every step),
 *   so a tool the host unregistered is gone at the next step.
 * - A call goes through `executeTool(tool, inputJson, {signal})`, which runs the host's own execute;
 *   its result (a string: JSON when the tool returned an object) is given to the model as JSON when it
 *   parses, as text otherwise. A throw is an error result.
 * - Confirmation: a tool annotated `readOnlyHint: true` runs without asking (as a host tool registered
 *   with `readOnly`); every other one asks through the widget's confirmation dialog first.
 * - Names follow mcp-tool.ts (`get-page-title` → `get_page_title`); a tool without an input schema
 *   takes no arguments. A tool whose name another tool holds, or whose definition defineCustomTool
 *   refuses (a schema that is not an object schema), is not offered.
 */
import { defineCustomTool, CustomToolDefinitionError } from '../custom-tool';
import { modelToolName } from '../mcp/mcp-tool';
import { ToolError, type Tool } from '../tool';

/** A tool as `getTools()` lists it. */
export interface WebMcpRegisteredTool {
  name: string;
  title?: string;
  description: string;
  inputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; untrustedContentHint?: boolean };
}

/** What this module reads of `document.modelContext`. */
export interface ModelContextLike {
  getTools(): Promise<WebMcpRegisteredTool[]>;
  executeTool?(tool: WebMcpRegisteredTool, inputArgsJson: string, options?: { signal?: AbortSignal }): Promise<unknown>;
}

/** The page's WebMCP context, when the browser or a polyfill provides one that can run tools. */
export function pageModelContext(doc: Document = document): ModelContextLike | null {
  const context = (doc as Document & { modelContext?: ModelContextLike }).modelContext;
  return context && typeof context.getTools === 'function' && typeof context.executeTool === 'function' ? context : null;
}

const NO_ARGUMENTS = { type: 'object', properties: {} };

export class WebMcpTools {
  constructor(private readonly context: ModelContextLike) {}

  /** The host's tools now; `taken`: names other tools hold (those host tools are left out). */
  async tools(taken: ReadonlySet<string> = new Set()): Promise<Tool[]> {
    const out: Tool[] = [];
    for (const registered of await this.context.getTools()) {
      const tool = this.tool(registered);
      if (tool && !taken.has(tool.name)) out.push(tool);
    }
    return out;
  }

  private tool(registered: WebMcpRegisteredTool): Tool | null {
    const context = this.context;
    try {
      return defineCustomTool({
        name: modelToolName(registered.name),
        description: registered.description || registered.title || registered.name,
        parameters: registered.inputSchema ?? NO_ARGUMENTS,
        readOnly: registered.annotations?.readOnlyHint === true,
        async execute(args, { signal, reportSource }) {
          reportSource?.('WebMCP: this page');
          let result: unknown;
          try {
            result = await context.executeTool!(registered, JSON.stringify(args), { signal });
          } catch (e) {
            if (signal.aborted) throw e;
            throw new ToolError(e instanceof Error ? e.message : String(e));
          }
          return typeof result === 'string' ? parsedOrText(result) : result;
        },
      });
    } catch (e) {
      if (e instanceof CustomToolDefinitionError) return null;
      throw e;
    }
  }
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
