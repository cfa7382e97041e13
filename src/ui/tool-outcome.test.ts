import { describe, expect, it } from 'vitest';
import { toolOutcome } from './tool-outcome';

describe('toolOutcome', () => {
  const cases: Record<string, { name: string; content: string; isError: boolean; outcome: string }> = {
    'code that printed': { name: 'code_interpreter', content: '{"stdout": "42\\n"}', isError: false, outcome: 'done' },
    'a Python exception (the tool succeeded, the code did not)': {
      name: 'code_interpreter',
      content: '{"error": "Traceback (most recent call last):\\n  File \\"<exec>\\", line 1\\n    print(\\nSyntaxError: \'(\' was never closed"}',
      isError: false,
      outcome: 'failed',
    },
    'output on stderr': { name: 'code_interpreter', content: '{"stdout": "", "stderr": "warning: x is deprecated\\n"}', isError: false, outcome: 'stderr' },
    'an empty stderr is not a problem': { name: 'code_interpreter', content: '{"stdout": "1\\n", "stderr": ""}', isError: false, outcome: 'done' },
    "the sandbox's timeout": { name: 'code_interpreter', content: '{"error": "timeout after 10s; the interpreter was restarted", "state_lost": true}', isError: false, outcome: 'timeout' },
    "the loop's timeout": { name: 'brave_search', content: '{"error": "timeout after 10s"}', isError: true, outcome: 'timeout' },
    'denied by the user': { name: 'brave_search', content: '{"error": "the user declined to run brave_search"}', isError: true, outcome: 'denied' },
    'no one could be asked': { name: 'x', content: '{"error": "x needs the user\'s confirmation and no one could be asked"}', isError: true, outcome: 'denied' },
    'an error result': { name: 'brave_search', content: '{"error": "the tool proxy is not available"}', isError: true, outcome: 'failed' },
    'a custom tool returning an error object': { name: 'get_weather', content: '{"error": "city not found"}', isError: false, outcome: 'failed' },
    'plain text': { name: 'wolfram_alpha', content: 'Result:\n42', isError: false, outcome: 'done' },
  };
  for (const [name, c] of Object.entries(cases)) it(name, () => expect(toolOutcome(c.name, c.content, c.isError)).toBe(c.outcome));
});
