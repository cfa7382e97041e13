/**
 * Unforced, end to end, in Node, with a real llama-server as the engine (the micro model's F32 GGUF;
 * the server samples, greedy): the cases of tests/support/micro-e2e.ts, as micro-e2e.test.ts runs
 * them on our engine.
 */
import { startLlamaServer, type LlamaServer } from '../../tests/support/llama-server';
import { describeMicroE2e } from '../../tests/support/micro-e2e';

let llamaServer: LlamaServer;

describeMicroE2e('a real llama-server as the engine', () => ({ kind: 'server', url: llamaServer.url }), {
  before: async () => {
    llamaServer = await startLlamaServer();
  },
  after: async () => {
    await llamaServer?.stop();
  },
});
