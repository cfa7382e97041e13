/**
 * Llama 3.1's built-in tools, the one list: called through `<|python_tag|>`, listed (but for the code
 * interpreter) on the system block's `Tools:` line, in this order. Every other tool name is custom.
 */
export const BUILTIN_TOOL_NAMES = ['brave_search', 'wolfram_alpha', 'code_interpreter'] as const;

export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/** The built-ins whose one argument is a query string (the code interpreter takes code). */
export const QUERY_TOOL_NAMES = ['brave_search', 'wolfram_alpha'] as const;

export function isBuiltinToolName(name: string): name is BuiltinToolName {
  return (BUILTIN_TOOL_NAMES as readonly string[]).includes(name);
}
