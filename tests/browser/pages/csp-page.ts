// Test page, served with a Content-Security-Policy without 'unsafe-eval': defines a custom tool and
// calls it as the page loads. (Code the test runs through page.evaluate is exempt from the policy.)
import { defineCustomTool } from '../../../src/tools/custom-tool';

export interface CspOutcome {
  /** What `new Function` did here: the name of the error it threw, or 'allowed'. */
  codeFromStrings: string;
  /** The ToolError message for arguments the schema refuses (or why the tool could not be defined). */
  refused: string;
  /** What the host's execute returned for arguments the schema accepts. */
  accepted: unknown;
}

declare global {
  interface Window {
    cspOutcome: CspOutcome;
    ready: boolean;
  }
}

function codeFromStrings(): string {
  try {
    new Function('return 1')();
    return 'allowed';
  } catch (error) {
    return (error as Error).name;
  }
}

async function useCustomTool(): Promise<Omit<CspOutcome, 'codeFromStrings'>> {
  const tool = defineCustomTool({
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', maximum: 7 } }, required: ['city'], additionalProperties: false },
    execute: ({ city }) => `sunny in ${String(city)}`,
  });
  const context = { signal: new AbortController().signal };
  const refused = await tool.execute({ days: 9, extra: 1 }, context).then(String, (error: Error) => error.message);
  return { refused, accepted: await tool.execute({ city: 'Paris', days: 3 }, context) };
}

window.cspOutcome = {
  codeFromStrings: codeFromStrings(),
  ...(await useCustomTool().catch((error: Error) => ({ refused: `${error.name}: ${error.message}`, accepted: undefined }))),
};
window.ready = true;
