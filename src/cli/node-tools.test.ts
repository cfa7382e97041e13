import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeTools } from './node-tools';

const saved = process.env.TOOL_PROXY_URL;
afterEach(() => {
  if (saved === undefined) delete process.env.TOOL_PROXY_URL;
  else process.env.TOOL_PROXY_URL = saved;
});

describe("the CLI's tools", () => {
  it('an unreachable tool proxy says where it was looked for and how to point the CLI at one', async () => {
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((done) => server.close(() => done())); // nothing listens there now
    process.env.TOOL_PROXY_URL = `http://127.0.0.1:${port}/api/tools/`;
    const search = nodeTools().find((t) => t.name === 'brave_search')!;
    await expect(search.execute({ query: 'x' }, { signal: new AbortController().signal })).rejects.toThrow(
      new RegExp(`could not reach the tool proxy at http://127\\.0\\.0\\.1:${port}/api/tools/brave_search.*npm run dev.*port 5173.*TOOL_PROXY_URL`),
    );
  });
});
