/**
 * The languages of Llama 3.1's calls (shared/FORMAT.md "Assistant turns"), as XGrammar inputs:
 * - a custom call: the JSON `{"name": <an offered name>, "parameters": <its schema>}` — keys in that
 *   order, Python's separators (the spacing the checkpoint was tuned on);
 * - after `<|python_tag|>`: `brave_search.call(query="…")` / `wolfram_alpha.call(query="…")` for the
 *   offered built-ins, and, when the code interpreter is offered, code: any text that does not start
 *   like a built-in call (so a call can be neither malformed nor to a tool not offered).
 */
import type { ConstrainedBuiltin, ConstrainedTool, JsonSchema } from '../../src/engine/contract';

const SEARCH_BUILTINS = ['brave_search', 'wolfram_alpha'] as const;

/** The JSON schema of one call of any of `tools` (at least one). */
export function customCallSchema(tools: readonly ConstrainedTool[]): JsonSchema {
  const one = (tool: ConstrainedTool): JsonSchema => ({
    type: 'object',
    properties: { name: { const: tool.name }, parameters: parametersSchema(tool.parameters) },
    required: ['name', 'parameters'],
    additionalProperties: false,
  });
  return tools.length === 1 ? one(tools[0]!) : { anyOf: tools.map(one) };
}

/** A tool without a schema (or `true`, `{}`) takes any object. */
function parametersSchema(schema: JsonSchema): JsonSchema {
  if (schema === true || (typeof schema === 'object' && Object.keys(schema).length === 0)) return { type: 'object' };
  return schema;
}

/** The EBNF of what may follow the tag (the offered built-ins, at least one), root rule `root`. */
export function taggedCallGrammar(builtins: readonly ConstrainedBuiltin[]): string {
  const calls = SEARCH_BUILTINS.filter((name) => builtins.includes(name));
  const alternatives = calls.map((name) => `"${name}.call(query=" python_string ")"`);
  const rules: string[] = ['python_string ::= "\\"" ([^"\\\\\\n] | "\\\\" [^\\n])* "\\""'];
  if (builtins.includes('code_interpreter')) {
    alternatives.push('code');
    rules.push(...textNotStarting(SEARCH_BUILTINS.map((name) => `${name}.`), 'code'));
  }
  return [`root ::= ${alternatives.join(' | ')}`, ...rules].join('\n');
}

/**
 * Rules for `name`: any non-empty text that does not start with one of `prefixes` (letters, digits,
 * `_` and `.` only). One rule per proper prefix matched so far; a text may end anywhere short of a
 * whole prefix.
 */
function textNotStarting(prefixes: readonly string[], name: string): string[] {
  const rules: string[] = ['any_text ::= [^]*'];
  let count = 0;
  const build = (matched: string): string => {
    const rule = matched === '' ? name : `${name}_${++count}`;
    const next = [...new Set(prefixes.filter((p) => p.startsWith(matched) && p.length > matched.length).map((p) => p[matched.length]!))];
    const alternatives = [`[^${next.join('')}] any_text`];
    for (const char of next) {
      const longer = matched + char;
      if (!prefixes.includes(longer)) alternatives.push(`"${char}" ${build(longer)}`);
    }
    if (matched !== '') alternatives.push('""');
    rules.push(`${rule} ::= ${alternatives.join(' | ')}`);
    return rule;
  };
  build('');
  return rules;
}
