/**
 * Which test files run in which tier beyond `unit` (vitest.config.ts): a file named here runs in its
 * tier only. `unit` is what stays: in-process logic, no real model, no spawned process, no build, no
 * real llama-server, no long corpus checks.
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
  // Generates 40,000 corpus dialogues to show that no paraphrase evaluation question is among them.
  'scripts/micro-llama/paraphrase-eval.test.ts',
];

/**
 * Production builds read back (the page, the widget, the package and its consumers, the reference docs:
 * vite, tsc, npm pack, TypeDoc): a minute or more each. tests/tiers.test.ts checks that every Node test that builds is here.
 */
export const BUILD_FILES: readonly string[] = ['tests/build/build-output.test.ts', 'tests/build/package-consumers.test.ts', 'tests/build/reference-docs.test.ts'];

/** Properties checked over many generated inputs (fast-check, the random model): minutes each. */
export const PROPERTY_FILES: readonly string[] = ['worker/grammar/constraint.property.test.ts'];

/**
 * What puts a test file in the `model` tier (tests/tiers.test.ts checks it): importing one of these
 * names, each of which loads a real model, tokenizer build or runtime in Node, or starts a process.
 */
export const MODEL_TIER_IMPORTS: Readonly<Record<string, string>> = {
  createNodeEngine: 'the Node engine: loads the tiny or micro model on ONNX Runtime or node-llama-cpp',
  nodeBackendFactory: 'the Node engine\'s backends (ONNX Runtime, node-llama-cpp)',
  createLlamaCppBackend: 'node-llama-cpp with a GGUF model',
  createOnnxBackend: 'ONNX Runtime with the tiny or micro model',
  openLlamaSession: 'an ONNX Runtime session on a model graph',
  describeMicroE2e: 'the micro model answering end-to-end cases',
  buildTokenizer: 'the 128k-vocabulary tokenizer build',
  AutoTokenizer: 'the transformers.js reference tokenizer',
  buildMicroModel: 'the micro model build',
  buildTinyModel: 'the tiny model build',
  tinyLlamaWeights: 'the tiny model\'s weights generated',
  buildGgufModels: 'the GGUF models built',
  startNpmScript: 'an npm script (serve) started as a process',
  runAsProcess: 'the CLI started as a process',
  runInProcess: 'the CLI answering with a real model',
  NodePythonSandbox: 'a real Python (Pyodide) in Node',
  loadPyodide: 'a real Python (Pyodide) in Node',
  startEverythingOverHttp: 'an MCP server (server-everything) started as a process',
  mcpStdioServer: 'an MCP server started as a process over stdio',
};

/** Files that load a real model, tokenizer build or runtime in Node, or start a server or CLI process (MODEL_TIER_IMPORTS). */
export const MODEL_FILES: readonly string[] = [
  // The Node engine on the tiny or micro model (ONNX Runtime, node-llama-cpp, xgrammar compiled).
  'worker/create-node-engine.test.ts',
  'worker/engine.test.ts',
  'worker/engine-slots.test.ts',
  'worker/backends/llamacpp-backend.test.ts',
  'worker/backends/llamacpp-sequences.test.ts',
  'worker/backends/remote-backend.vllm-fixtures.test.ts',
  'src/agent/micro-e2e.test.ts',
  'src/agent/micro-offline.test.ts',
  'src/agent/run-agent.test.ts',
  'src/agent/context-loop.test.ts',
  'src/agent/worked-example.test.ts',
  'src/api/ai-sdk/llama31.test.ts',
  'src/api/ai-sdk/llama31-constraints.test.ts',
  'src/api/openai/create-chat-completions.test.ts',
  'src/server/api/api-server.test.ts',
  'src/server/api/serve-as-engine.test.ts',
  'src/server/api/serve-slots.test.ts',
  'src/ui/chat-library.test.ts',
  'src/ui/chat-session.test.ts',
  'src/ui/stored-conversation.test.ts',
  'bench/sections.test.ts',
  'scripts/micro-llama/e2e-cases.test.ts',
  'tests/conformance/conformance.test.ts',
  // Model and tokenizer builds checked against their references (ONNX Runtime, transformers.js, textbook BPE).
  'scripts/setup/micro-model.test.ts',
  'scripts/setup/tiny-model.test.ts',
  'scripts/setup/tokenizer.test.ts',
  'scripts/onnx/build-llama-onnx.test.ts',
  'scripts/gguf/llama-gguf.test.ts',
  'src/format/tokenizer/llama-tokenizer.test.ts',
  'src/format/tokenizer/load-node.test.ts',
  // Processes: `npm run serve` and the CLI.
  'src/server/api/serve.test.ts',
  'src/server/api/serve-constraints.test.ts',
  'src/server/malformed-target-fuzz.test.ts',
  'src/cli/cli.test.ts',
  // MCP servers started as processes (Streamable HTTP and stdio).
  'src/cli/mcp-servers.test.ts',
  'src/cli/cli-mcp.test.ts',
  // A real Python (Pyodide) in Node.
  'src/sandbox/cell-harness.test.ts',
];
