/**
 * Registers the conformance checks (backend-checks.ts) as vitest tests, one describe per subject;
 * each subject is made once, on its first check, and shared by the rest.
 */
import { describe, it } from 'vitest';
import { CHECKS, type ConformanceSubject } from './backend-checks';

export function describeConformance(subjects: Record<string, () => Promise<ConformanceSubject>>): void {
  for (const [name, make] of Object.entries(subjects)) {
    describe(`backend conformance: ${name}`, () => {
      let subject: Promise<ConformanceSubject> | null = null;
      for (const [check, run] of Object.entries(CHECKS)) {
        it(check, async () => {
          subject ??= make();
          await run(await subject);
        });
      }
    });
  }
}
