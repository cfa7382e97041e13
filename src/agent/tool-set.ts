import { BUILTIN_TOOL_NAMES, isBuiltinToolName } from '../format/builtin-tools';
import { findForbiddenKey, forbiddenKeyError } from '../format/argument-keys';
import type { ToolCallConstraint } from '../engine/contract';
import type { ToolOptions } from '../format/system-options';
import type { ToolCall } from '../format/types';
import { toolSchemaForPrompt } from '../tools/custom-tool';
import { FAILURE_TEXTS } from '../tools/failure-texts';
import type { Tool } from '../tools/tool';


/**
 * The tools of one run, by name. The prompt's tool options are derived from them, so what the model
 * is told and what the loop can run never disagree.
 */
export class ToolSet {
  private readonly byName = new Map<string, Tool>();

  constructor(tools: readonly Tool[]) {
    for (const tool of tools) {
      if (this.byName.has(tool.name)) throw new Error(`two tools are named "${tool.name}"`);
      this.byName.set(tool.name, tool);
    }
  }

  get size(): number {
    return this.byName.size;
  }

  all(): Tool[] {
    return [...this.byName.values()];
  }

  /** builtinTools and custom tool schemas for the renderer. */
  renderOptions(): ToolOptions {
    const builtin = BUILTIN_TOOL_NAMES.filter((n) => this.byName.has(n));
    const custom = this.all().filter((t) => !isBuiltinToolName(t.name));
    return { builtinTools: [...builtin], tools: custom.map(toolSchemaForPrompt) };
  }

  /** What the model may call, as the engine constrains it: these tools only, their arguments valid. */
  constraint(mode: ToolCallConstraint['mode'] = 'auto'): ToolCallConstraint {
    const custom = this.all().filter((t) => !isBuiltinToolName(t.name));
    return {
      type: 'tool_calls',
      mode,
      tools: custom.map((t) => ({ name: t.name, parameters: t.parameters })),
      builtins: BUILTIN_TOOL_NAMES.filter((n) => this.byName.has(n)),
    };
  }

  /**
   * The tool a parsed call runs, with its arguments; or why none can run. A built-in-style call to a
   * custom tool's name (`get_weather.call(city="Paris")`) runs that custom tool. Arguments with a
   * `__proto__`, `constructor` or `prototype` key (format/argument-keys.ts) run nothing.
   */
  resolve(call: ToolCall): { tool: Tool; args: Record<string, unknown> } | { error: Record<string, unknown> } {
    if (call.kind === 'invalid') {
      return { error: { error: FAILURE_TEXTS.unreadableCall(call.arguments.error) } };
    }
    const name = call.kind === 'code' ? 'code_interpreter' : call.name;
    const tool = this.byName.get(name);
    if (!tool) {
      const available = [...this.byName.keys()];
      return {
        error:
          name === 'code_interpreter'
            ? { error: FAILURE_TEXTS.interpreterOff(), available_tools: available }
            : { error: FAILURE_TEXTS.unknownTool(name), available_tools: available },
      };
    }
    // The parser refuses these keys already; calls built elsewhere (structured, replayed) are checked here.
    const forbidden = findForbiddenKey(call.arguments);
    if (forbidden) return { error: { error: FAILURE_TEXTS.invalidArguments(name, forbiddenKeyError(forbidden)) } };
    return { tool, args: call.arguments };
  }
}
