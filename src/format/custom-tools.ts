import { pythonJsonIndented } from './python-json';

/**
 * The preamble of the first user turn when custom tools are given, in the words and layout of the
 * chat template shipped with Llama-3.1-8B-Instruct (note the missing space before "Do not").
 */
export const CUSTOM_TOOLS_PREAMBLE =
  'Given the following functions, please respond with a JSON for a function call ' +
  'with its proper arguments that best answers the given prompt.\n\n' +
  'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.' +
  'Do not use variables.\n\n';

/** The first user turn's content: preamble, each schema as 4-space-indented JSON and a blank line, then the question. */
export function customToolsUserContent(tools: readonly object[], firstUserMessage: string): string {
  return CUSTOM_TOOLS_PREAMBLE + tools.map((t) => `${pythonJsonIndented(t)}\n\n`).join('') + firstUserMessage;
}
