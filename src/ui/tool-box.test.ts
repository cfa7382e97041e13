import { afterEach, describe, expect, it, vi } from 'vitest';
import { ToolBox } from './tool-box';

const CORPUS = 'http://page.test/models/micro-llama/demo-corpus.json';
const ON = { brave_search: true, wolfram_alpha: true, code_interpreter: false };
const signal = () => new AbortController().signal;
afterEach(() => vi.unstubAllGlobals());

/** A static host: the corpus is there (or not, `corpusStatus`), the tool proxy is not. */
function staticHost(corpusStatus: number) {
  const fetched: string[] = [];
  vi.stubGlobal('fetch', async (url: string) => {
    fetched.push(String(url).split('?')[0]!);
    if (url === CORPUS && corpusStatus === 200) return Response.json([{ title: 'Japan - Wikipedia', url: 'https://en.wikipedia.org/wiki/Japan', text: 'The capital of Japan is Tokyo.' }]);
    return new Response('<!doctype html>not found', { status: 404 });
  });
  return fetched;
}

describe("the page's tool box", () => {
  it('on a host without the tool proxy, search and math are answered in the page; the corpus is fetched once', async () => {
    const fetched = staticHost(200);
    const [search, math] = new ToolBox({ pyodideBaseUrl: 'http://page.test/pyodide/', demoCorpusUrl: CORPUS }).tools(ON, '/api/tools/');
    for (let i = 0; i < 2; i++) {
      expect(await search!.execute({ query: 'capital of Japan' }, { signal: signal() })).toMatchObject({ source: 'local index', results: [{ description: 'The capital of Japan is Tokyo.' }] });
    }
    expect(await math!.execute({ query: '2^10' }, { signal: signal() })).toMatch(/Result:\n1024$/);
    expect(fetched.filter((u) => u === CORPUS)).toHaveLength(1);
  });

  it('a corpus that cannot be fetched is a clear error, and the next search tries again', async () => {
    const fetched = staticHost(404);
    const [search] = new ToolBox({ pyodideBaseUrl: 'http://page.test/pyodide/', demoCorpusUrl: CORPUS }).tools(ON, '/api/tools/');
    for (let i = 0; i < 2; i++) {
      await expect(search!.execute({ query: 'capital of Japan' }, { signal: signal() })).rejects.toThrow(/the local index's documents are missing \(HTTP 404/);
    }
    expect(fetched.filter((u) => u === CORPUS)).toHaveLength(2);
  });

  it("the user's documents join the index; 'local' answers from it without asking the proxy, 'service' only from the proxy", async () => {
    const fetched = staticHost(200);
    const box = new ToolBox({ pyodideBaseUrl: 'http://page.test/pyodide/', demoCorpusUrl: CORPUS });
    expect(await box.addDocuments([{ title: 'Harbour shop', url: 'file:shop.md', text: 'The harbour shop opens at 9:00.' }])).toBe(1);
    const [local] = box.tools(ON, '/api/tools/', 'local');
    expect(local!.needsConfirmation).toBe(false);
    expect(await local!.execute({ query: 'harbour shop opens' }, { signal: signal() })).toMatchObject({ results: [{ url: 'file:shop.md' }] });
    expect(fetched.filter((u) => u !== CORPUS)).toEqual([]);
    const [service] = box.tools(ON, '/api/tools/', 'service');
    await expect(service!.execute({ query: 'harbour shop opens' }, { signal: signal() })).rejects.toThrow(/the tool proxy is not available/);
  });

  it('without a corpus (a host that did not opt in) the tools are the services only, as before', async () => {
    staticHost(200);
    const [search] = new ToolBox({ pyodideBaseUrl: 'http://page.test/pyodide/' }).tools(ON, '/api/tools/');
    await expect(search!.execute({ query: 'capital of Japan' }, { signal: signal() })).rejects.toThrow(/the tool proxy is not available \(HTTP 404/);
  });
});
