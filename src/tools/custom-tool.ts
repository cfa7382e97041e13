/**
 * Custom tools from the host page: checked once at registration, arguments checked on every call.
 *
 * Invariants:
 * - `defineCustomTool` throws `CustomToolDefinitionError` (naming the field) for a bad name, a missing
 *   description, a `parameters` that is not an object schema or does not compile, or a missing
 *   execute; a tool it returns has a schema that compiled.
 * - The returned tool's `execute` checks the arguments against the schema before the host's code sees
 *   them; invalid arguments are a ToolError listing each problem in plain words
 *   (`parameters.city: must be string`), and the host's execute is not called. Arguments carrying a
 *   `__proto__`, `constructor` or `prototype` key at any depth are refused the same way, whatever
 *   the schema allows (format/argument-keys.ts).
 * - Confirmation rule: tools that send data out or change things default to needing confirmation.
 *   The engine cannot tell what a host's tool does, so `needsConfirmation` is true unless the host
 *   declares the tool `readOnly: true` (then false); an explicit `needsConfirmation` wins over both.
 * - The schema is copied (as JSON) at registration: later changes to the host's object change
 *   neither the checks nor the prompt.
 */
import { BUILTIN_TOOL_NAMES } from '../format/builtin-tools';
import { findForbiddenKey, forbiddenKeyError } from '../format/argument-keys';
import { compileChecker, SchemaCompileError, type ArgumentChecker } from './schema-validator';
import { FAILURE_TEXTS } from './failure-texts';
import { ToolError, type Tool, type ToolContext } from './tool';

export interface CustomToolSpec {
  /** What the model calls: an identifier (letters, digits, `_`; not starting with a digit), ≤ 64 chars. */
  name: string;
  /** Shown to the model in the custom-tools block: say what it does and when to use it. */
  description: string;
  /** A JSON schema with `"type": "object"` (draft-07 unless `$schema` says 2019-09 / 2020-12). */
  parameters: Record<string, unknown>;
  /** Gets arguments that passed the schema. Its return value or throw becomes the ipython result. */
  execute(args: Record<string, unknown>, context: ToolContext): unknown;
  /** Only reads (no data sent out, nothing changed): runs without asking the user. Default false. */
  readOnly?: boolean;
  /** Overrides the rule above either way. */
  needsConfirmation?: boolean;
}

export type CustomToolField = 'name' | 'description' | 'parameters' | 'execute';

export class CustomToolDefinitionError extends Error {
  override readonly name = 'CustomToolDefinitionError';
  constructor(
    message: string,
    /** The spec field at fault. */
    readonly field: CustomToolField,
  ) {
    super(message);
  }
}

/** Names Llama 3.1 reserves for its built-in tools (called through `<|python_tag|>`, not as custom JSON). */
export const RESERVED_TOOL_NAMES: readonly string[] = BUILTIN_TOOL_NAMES;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_NAME_LENGTH = 64;

export function defineCustomTool(spec: CustomToolSpec): Tool {
  const name = checkName(spec?.name);
  const fail = (field: CustomToolField, message: string) => new CustomToolDefinitionError(`custom tool "${name}": ${message}`, field);
  if (typeof spec.description !== 'string' || spec.description.trim() === '') {
    throw fail('description', 'description must be a non-empty string (the model reads it to decide when to call the tool)');
  }
  if (typeof spec.execute !== 'function') throw fail('execute', 'execute must be a function');
  const parameters = copySchema(spec.parameters, fail);
  let check: ArgumentChecker;
  try {
    check = compileChecker(parameters);
  } catch (error) {
    if (!(error instanceof SchemaCompileError)) throw error;
    throw fail('parameters', `parameters is not a valid JSON schema: ${error.message}`);
  }
  const hostExecute = spec.execute.bind(spec);
  return {
    name,
    description: spec.description,
    parameters,
    needsConfirmation: spec.needsConfirmation ?? spec.readOnly !== true,
    async execute(args, context) {
      const forbidden = findForbiddenKey(args);
      if (forbidden) throw new ToolError(FAILURE_TEXTS.invalidArguments(name, forbiddenKeyError(forbidden)));
      const problems = check(args);
      if (problems.length > 0) {
        throw new ToolError(FAILURE_TEXTS.invalidArguments(name, problems.join('; ')));
      }
      return await hostExecute(args, context);
    },
  };
}

function checkName(name: unknown): string {
  if (typeof name !== 'string' || !IDENTIFIER.test(name) || name.length > MAX_NAME_LENGTH) {
    throw new CustomToolDefinitionError(
      `custom tool name must be an identifier of at most ${MAX_NAME_LENGTH} characters ` +
        `(letters, digits and _, not starting with a digit), got ${JSON.stringify(name) ?? String(name)}`,
      'name',
    );
  }
  if (RESERVED_TOOL_NAMES.includes(name)) {
    throw new CustomToolDefinitionError(`"${name}" is the name of a Llama 3.1 built-in tool: pick another name for a custom tool`, 'name');
  }
  return name;
}

function copySchema(
  parameters: unknown,
  fail: (field: CustomToolField, message: string) => CustomToolDefinitionError,
): Record<string, unknown> {
  if (parameters === null || typeof parameters !== 'object' || Array.isArray(parameters)) {
    throw fail('parameters', 'parameters must be a JSON schema object, e.g. {"type": "object", "properties": {...}}');
  }
  let copy: Record<string, unknown>;
  try {
    copy = JSON.parse(JSON.stringify(parameters)) as Record<string, unknown>;
  } catch {
    throw fail('parameters', 'parameters must be plain JSON (no cycles, BigInts or class instances)');
  }
  if (copy.type !== 'object') {
    throw fail('parameters', `parameters must have "type": "object" (the call's arguments are an object), got ${JSON.stringify(copy.type) ?? 'no type'}`);
  }
  return copy;
}

/** The OpenAI-style function schema the prompt's custom-tools block shows for one tool. */
export interface PromptToolSchema {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** `{"type": "function", "function": {"name", "description", "parameters"}}`, keys in that order. */
export function toolSchemaForPrompt(tool: Tool): PromptToolSchema {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}
