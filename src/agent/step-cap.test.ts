import { describe, expect, it } from 'vitest';
import { stepTokenCap } from './step-cap';

describe('stepTokenCap', () => {
  const cases: Record<string, { max: number; context: number | undefined; cap: number }> = {
    'the micro model (1,024 context): a quarter of it': { max: 1024, context: 1024, cap: 256 },
    'a 4,096 context keeps the 1,024 default': { max: 1024, context: 4096, cap: 1024 },
    'a smaller limit wins': { max: 100, context: 4096, cap: 100 },
    'no model known: the limit as given': { max: 1024, context: undefined, cap: 1024 },
  };
  for (const [name, c] of Object.entries(cases)) it(name, () => expect(stepTokenCap(c.max, c.context)).toBe(c.cap));
});
