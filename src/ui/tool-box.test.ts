import { afterEach, describe, expect, it, vi } from 'vitest';
import { memoryDocumentStore, type DocumentStore } from './document-store';
import { ToolBox } from './tool-box';

const CORPUS = 'http://page.test/local-search/corpus.json';
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
    expect(await box.addDocuments([{ title: 'Harbour shop', url: 'file:shop.md', text: 'The harbour shop opens at 9:00.' }])).toEqual({ total: 1, kept: false });
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

  it("the user's documents are kept across reloads (a new tool box over the same store) until forgotten", async () => {
    const fetched = staticHost(200);
    const store = memoryDocumentStore();
    const shop = { title: 'Harbour shop', url: 'file:shop.md', text: 'The harbour shop opens at 9:00.' };
    const first = new ToolBox({ pyodideBaseUrl: 'http://page.test/pyodide/', demoCorpusUrl: CORPUS, documentStore: store });
    expect(await first.restoredDocuments()).toEqual({ total: 0, unreadable: 0 });
    expect(fetched).toEqual([]); // nothing stored: the corpus waits for the first search
    expect(await first.addDocuments([shop])).toEqual({ total: 1, kept: true });

    const reloaded = new ToolBox({ pyodideBaseUrl: 'http://page.test/pyodide/', demoCorpusUrl: CORPUS, documentStore: store });
    expect(await reloaded.restoredDocuments()).toEqual({ total: 1, unreadable: 0 });
    const [search] = reloaded.tools(ON, '/api/tools/', 'local');
    expect(await search!.execute({ query: 'harbour shop opens' }, { signal: signal() })).toMatchObject({ results: [{ url: 'file:shop.md' }] });

    await reloaded.forgetDocuments();
    expect(await store.all()).toEqual({ documents: [], unreadable: 0 });
    const [after] = reloaded.tools(ON, '/api/tools/', 'local');
    expect(await after!.execute({ query: 'harbour shop opens' }, { signal: signal() })).toMatchObject({ results: [] });
    expect(await after!.execute({ query: 'capital of Japan' }, { signal: signal() })).toMatchObject({ results: [{ url: 'https://en.wikipedia.org/wiki/Japan' }] });
  });

  it('storage that fails keeps the documents for this page and says why; a store that will not open leaves the demo corpus', async () => {
    staticHost(200);
    const broken: DocumentStore = {
      all: async () => Promise.reject(new Error('this browser would not open its storage (IndexedDB): denied')),
      put: async () => Promise.reject(new Error('this browser would not open its storage (IndexedDB): denied')),
      clear: async () => {},
    };
    const box = new ToolBox({ pyodideBaseUrl: 'http://page.test/pyodide/', demoCorpusUrl: CORPUS, documentStore: broken });
    const added = await box.addDocuments([{ title: 'Harbour shop', url: 'file:shop.md', text: 'The harbour shop opens at 9:00.' }]);
    expect(added).toEqual({ total: 1, kept: false, why: 'this browser would not open its storage (IndexedDB): denied' });
    const [search] = box.tools(ON, '/api/tools/', 'local');
    expect(await search!.execute({ query: 'capital of Japan' }, { signal: signal() })).toMatchObject({ results: [{ description: 'The capital of Japan is Tokyo.' }] });
  });

  it('a stored record that is not a document is counted, never searched', async () => {
    staticHost(200);
    const store = memoryDocumentStore();
    await store.put([{ title: 'Harbour shop', url: 'file:shop.md', text: 'The harbour shop opens at 9:00.' }, { title: 7, url: 'file:bad.md', text: null } as never]);
    const box = new ToolBox({ pyodideBaseUrl: 'http://page.test/pyodide/', demoCorpusUrl: CORPUS, documentStore: store });
    expect(await box.restoredDocuments()).toEqual({ total: 1, unreadable: 1 });
  });
});
