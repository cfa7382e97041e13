/**
 * Module boundaries, checked by `npm test` (`depcruise`): which code may import which.
 * - page: what runs in the page and the widget (src/ui, src/widget) — the worker reaches it only as a
 *   Worker script, never as an import;
 * - Node-only: src/server, src/cli and the Node engine's files (NODE_ONLY) — the only product code that may
 *   import node:* or Node-only packages;
 * - tests/ and bench/ are never imported by product code (src/, worker/);
 * - src/package/ holds the npm package's entry points: nothing of the product imports them;
 * - no cycles anywhere.
 */

/** Product files that run only in Node (the CLI, the servers, the Node engine and its backends). */
const NODE_ONLY = [
  '^src/server/',
  '^src/cli/',
  '^src/format/tokenizer/load-node\\.ts$',
  '^src/package/node\\.ts$',
  '^worker/create-node-engine\\.ts$',
  '^worker/backends/llamacpp-backend\\.ts$',
  '^worker/backends/node-llama-cpp-import\\.ts$',
  '^worker/backends/onnx-node-session\\.ts$',
  '^worker/grammar/node-grammars\\.ts$',
  '^worker/grammar/xgrammar-node\\.ts$',
];
const TEST_FILE = '\\.test\\.ts$';
const NODE_PACKAGES = '(^|/)node_modules/(node-llama-cpp|onnxruntime-node|@node-llama-cpp/[^/]+)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes two modules one: neither can be understood, tested or loaded alone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'page-not-worker-internals',
      severity: 'error',
      comment: 'The page talks to the engine through src/engine (the client and the contract); worker/ reaches it only as a Worker script.',
      from: { path: '^src/(ui|widget)/', pathNot: TEST_FILE },
      to: { path: '^worker/', pathNot: '^worker/engine\\.worker\\.ts$' },
    },
    {
      name: 'sandbox-and-tools-one-way',
      severity: 'error',
      comment: 'The Python sandbox is a runtime the tools use; it knows nothing of the tools.',
      from: { path: '^src/sandbox/', pathNot: TEST_FILE },
      to: { path: '^src/tools/' },
    },
    {
      name: 'product-not-tests-or-bench',
      severity: 'error',
      comment: 'src/ and worker/ ship; tests/ and bench/ do not.',
      from: { path: '^(src|worker)/', pathNot: TEST_FILE },
      to: { path: '^(tests|bench)/' },
    },
    {
      name: 'package-entries-are-entries',
      severity: 'error',
      comment: "src/package/ is what the npm package exports: the product's own modules never depend on it.",
      from: { path: '^(src|worker)/', pathNot: '^src/package/' },
      to: { path: '^src/package/' },
    },
    {
      name: 'node-only-in-node-folders',
      severity: 'error',
      comment: 'Code the page or the browser worker may load imports no Node built-in or Node-only package.',
      from: { path: '^(src|worker)/', pathNot: [TEST_FILE, ...NODE_ONLY] },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'browser-code-not-node-only-files',
      severity: 'error',
      comment: 'Code the page or the browser worker may load never imports a Node-only file (not even its types: move shared types to a neutral module).',
      from: { path: '^(src|worker)/', pathNot: [TEST_FILE, ...NODE_ONLY] },
      to: { path: NODE_ONLY },
    },
    {
      name: 'node-packages-in-node-folders',
      severity: 'error',
      comment: 'node-llama-cpp and onnxruntime-node are native Node modules: only the Node engine loads them.',
      from: { path: '^(src|worker)/', pathNot: [TEST_FILE, ...NODE_ONLY] },
      to: { path: NODE_PACKAGES },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing is a typo or a missing dependency.',
      from: {},
      to: { couldNotResolve: true, pathNot: '\\?(worker|url|raw)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
  },
};
