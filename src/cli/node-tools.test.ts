import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeTools } from './node-tools';

const saved = process.env.TOOL_PROXY_URL;
afterEach(() => {
  if (saved === undefined) delete process.env.TOOL_PROXY_URL;
  else process.env.TOOL_PROXY_URL = saved;
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((done) => server.close(() => done())); // nothing listens there now
  return port;
}
const signal = () => new AbortController().signal;

describe("the CLI's tools", () => {
  it('--tools service: an unreachable tool proxy says where it was looked for and how to point the CLI at one', async () => {
    const port = await closedPort();
    process.env.TOOL_PROXY_URL = `http://127.0.0.1:${port}/api/tools/`;
    const search = nodeTools({ provider: 'service' }).find((t) => t.name === 'brave_search')!;
    await expect(search.execute({ query: 'x' }, { signal: new AbortController().signal })).rejects.toThrow(
      new RegExp(`could not reach the tool proxy at http://127\\.0\\.0\\.1:${port}/api/tools/brave_search.*npm run dev.*port 5173.*TOOL_PROXY_URL`),
    );
  });

  it('by default (auto) no running proxy means this machine answers: the demo corpus, --docs files, mathjs', async () => {
    process.env.TOOL_PROXY_URL = `http://127.0.0.1:${await closedPort()}/api/tools/`;
    const docs = mkdtempSync(join(tmpdir(), 'docs-'));
    mkdirSync(join(docs, 'shop'));
    writeFileSync(join(docs, 'shop', 'hours.md'), '# Harbour shop\n\nThe harbour shop opens at 9:00 and closes at 17:00.');
    writeFileSync(join(docs, 'ignored.bin'), 'harbour shop');
    const [search, math] = nodeTools({ docsDir: docs });
    const capital = (await search!.execute({ query: 'capital of Japan' }, { signal: signal() })) as { source: string; results: Array<{ description: string }> };
    expect(capital.source).toBe('local index');
    expect(capital.results[0]!.description).toBe('The capital of Japan is Tokyo.');
    const shop = (await search!.execute({ query: 'harbour shop hours' }, { signal: signal() })) as { results: Array<{ url: string; title: string }> };
    expect(shop.results.map((r) => [r.title, r.url])).toEqual([['Harbour shop', 'file:shop/hours.md']]);
    expect(await math!.execute({ query: 'derivative of x^3' }, { signal: signal() })).toMatch(/Result:\nd\/dx\(x\^3\) = 3 x\^2$/);
  });

  it('--docs naming a directory that is not there is a CLI error when the index is first needed', async () => {
    process.env.TOOL_PROXY_URL = `http://127.0.0.1:${await closedPort()}/api/tools/`;
    const [search] = nodeTools({ provider: 'local', docsDir: '/nonexistent/docs' });
    await expect(search!.execute({ query: 'x' }, { signal: signal() })).rejects.toThrow(/--docs: cannot read the directory \/nonexistent\/docs \(ENOENT\)/);
  });
});
