/**
 * The package's agent entry (`llama-agent-web/agent`): the tool loop and its tools. The loop runs
 * wherever its engine does (the browser engine's client or the Node engine); the code interpreter's
 * sandbox needs a browser.
 */
import { LazyPyodideSandbox } from '../sandbox/lazy-pyodide-sandbox';
import type { Sandbox } from '../sandbox/sandbox';
import { assetUrls } from './asset-urls';

export interface PythonSandboxOptions {
  /** Base URL of the folder holding pyodide/ (the same `assets` as the engine's). */
  assets: string;
  /** Where the sandbox's hidden iframe goes (default document.body). */
  container?: HTMLElement;
}

/** A Python sandbox for `codeInterpreterTool` (browser only): Pyodide in a sandboxed iframe's worker, loaded on first use. */
export function createPythonSandbox(options: PythonSandboxOptions): Sandbox {
  return new LazyPyodideSandbox({ assetBaseUrl: assetUrls(options.assets).pyodideBaseUrl, ...(options.container ? { container: options.container } : {}) });
}

export { runAgent, type RunAgentOptions } from '../agent/run-agent';
export { collect, ofType } from '../agent/collect-events';
export type { AgentEvent, FinishReason } from '../agent/events';
export { defineCustomTool, CustomToolDefinitionError, type CustomToolSpec } from '../tools/custom-tool';
export { braveSearchTool, type BraveSearchOptions } from '../tools/brave-search';
export { wolframAlphaTool, type WolframAlphaOptions } from '../tools/wolfram-alpha';
export { codeInterpreterTool, type CodeInterpreterOptions, type CodeInterpreterTool } from '../tools/code-interpreter';
export { LocalSearchIndex, type LocalDocument } from '../tools/local-search';
export { ToolError, type Tool, type ToolContext } from '../tools/tool';
export type { ToolProvider } from '../tools/tool-provider';
export type { Sandbox, SandboxResult, SandboxRunOptions } from '../sandbox/sandbox';
