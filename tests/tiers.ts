/**
 * Which test files run in which tier beyond `unit` (vitest.config.ts): a file named here runs in its
 * tier only. `unit` is what stays: in-process, no build, no real llama-server, no long corpus checks.
 */

/** Files that start a real llama-server (tests/support/llama-server.ts): the tier builds it once per machine. */
export const LLAMA_SERVER_FILES: readonly string[] = [
  '**/*.llama-server.test.ts',
  'scripts/llama-server/llama-server-build.test.ts',
  'scripts/micro-llama/cross-implementation.test.ts',
  'src/server/engine-proxy.test.ts',
  'tests/conformance/conformance-llamacpp.test.ts',
  'tests/browser/engine-server.browser.test.ts',
];

/** The micro model's training corpus and its recipes: generated and tokenized at scale (tens of seconds to minutes). */
export const TRAINING_FILES: readonly string[] = [
  'scripts/micro-llama/corpus.test.ts',
  // Builds the corpus's frozen-row plan on import (every piece of the world's names tokenized) and writes a 1,200-dialogue corpus.
  'scripts/micro-llama/mixed-names.test.ts',
];

/** Properties checked over many generated inputs (fast-check, the random model): minutes each. */
export const PROPERTY_FILES: readonly string[] = ['worker/grammar/constraint.property.test.ts'];
