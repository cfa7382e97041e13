// Asks the micro demo model a question in Node, through the installed package only:
//   npm install && npm start                 (npm start first runs `llama-agent-assets copy assets --micro`)
//   node ask.mjs "What is the capital of Japan?"
// The micro model knows only its small synthetic world; it calls a tool and answers from the result.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { braveSearchTool, collect, LocalSearchIndex, ofType, runAgent, wolframAlphaTool } from 'llama-agent-web/agent';
import { createNodeEngine, loadTokenizer } from 'llama-agent-web/node';

const assets = fileURLToPath(new URL('./assets/', import.meta.url));
if (!existsSync(`${assets}models/micro-llama/onnx/model.onnx`)) {
  console.error('The micro model is not there yet: run `npx llama-agent-assets copy assets --micro` (or `npm start`).');
  process.exit(1);
}
const question = process.argv.slice(2).join(' ') || 'What is 123 * 45?';

const engine = createNodeEngine({ modelsDir: `${assets}models` });
await engine.load('micro-llama');
try {
  const corpus = JSON.parse(readFileSync(`${assets}local-search/corpus.json`, 'utf8'));
  const events = await collect(
    runAgent({
      engine,
      tokenizer: loadTokenizer(`${assets}models/llama-3.1-tokenizer`),
      // Answered on this machine: a local full-text index over the demo corpus, and mathjs.
      tools: [braveSearchTool({ provider: 'local', localIndex: async () => new LocalSearchIndex(corpus) }), wolframAlphaTool({ provider: 'local', localMath: true })],
      conversation: { messages: [{ role: 'user', content: question }] },
      sampling: { temperature: 0 },
      model: engine.model,
    }),
  );
  for (const call of ofType(events, 'tool-result')) console.log(`[${call.name}] ${call.content}`);
  const error = ofType(events, 'error')[0];
  if (error) throw new Error(`${error.error.code}: ${error.error.message}`);
  console.log(ofType(events, 'finish')[0].text);
} finally {
  await engine.unload();
}
