/**
 * The tools a run gets: the built-ins the settings turn on (brave_search and wolfram_alpha through
 * the tool proxy, the code interpreter in its Pyodide sandbox) and the host's custom tools.
 *
 * Invariants: one sandbox per ToolBox at a time, created on first need and kept (Python state
 * persists across turns) until resetPython(), which a new conversation calls: its interpreter is
 * new, nothing planted earlier survives; a custom tool's name is unique and never a built-in's
 * (defineCustomTool refuses those).
 */
import { PyodideSandbox } from '../sandbox/pyodide-sandbox';
import { braveSearchTool } from '../tools/brave-search';
import { codeInterpreterTool } from '../tools/code-interpreter';
import { defineCustomTool, type CustomToolSpec } from '../tools/custom-tool';
import type { Tool } from '../tools/tool';
import { wolframAlphaTool } from '../tools/wolfram-alpha';
import type { BuiltinToolId } from './settings';

export interface ToolBoxOptions {
  /** Absolute URL of Pyodide's files (public/pyodide/), ending in "/". */
  pyodideBaseUrl: string;
  /** Where the sandbox's hidden iframe goes (the widget keeps it inside its shadow root). */
  container?: HTMLElement;
}

export class ToolBox {
  private sandbox: PyodideSandbox | null = null;
  private readonly custom = new Map<string, Tool>();

  constructor(private readonly o: ToolBoxOptions) {}

  /** Registers a host tool (validated by defineCustomTool); replaces one of the same name. */
  register(spec: CustomToolSpec): Tool {
    const tool = defineCustomTool(spec);
    this.custom.set(tool.name, tool);
    return tool;
  }

  unregister(name: string): boolean {
    return this.custom.delete(name);
  }

  get customNames(): string[] {
    return [...this.custom.keys()];
  }

  tools(enabled: Record<BuiltinToolId, boolean>, proxyEndpoint: string): Tool[] {
    const out: Tool[] = [];
    if (enabled.brave_search) out.push(braveSearchTool({ proxyBase: proxyEndpoint }));
    if (enabled.wolfram_alpha) out.push(wolframAlphaTool({ proxyBase: proxyEndpoint }));
    if (enabled.code_interpreter) out.push(codeInterpreterTool(this.pythonSandbox()));
    out.push(...this.custom.values());
    return out;
  }

  /** Starts Python in the background when the code interpreter is on (a cold start takes seconds). */
  warm(enabled: Record<BuiltinToolId, boolean>): void {
    if (enabled.code_interpreter) void this.pythonSandbox().warm().catch(() => {});
  }

  /** Ends the Python interpreter (and anything it runs); the next code call gets a fresh one. */
  resetPython(): void {
    this.sandbox?.dispose();
    this.sandbox = null;
  }

  dispose(): void {
    this.sandbox?.dispose();
    this.sandbox = null;
  }

  private pythonSandbox(): PyodideSandbox {
    this.sandbox ??= new PyodideSandbox({ assetBaseUrl: this.o.pyodideBaseUrl, ...(this.o.container ? { container: this.o.container } : {}) });
    return this.sandbox;
  }
}
