/**
 * The tools a run gets: the built-ins the settings turn on (brave_search and wolfram_alpha through
 * the tool proxy — answered in the page, from the local index over the demo corpus and by mathjs, when
 * the proxy has no key or there is none (tool-provider.ts) — the code interpreter in its Pyodide
 * sandbox) and the host's custom tools.
 *
 * Invariants: one sandbox per ToolBox at a time, created on first need and kept (Python state
 * persists across turns) until resetPython(), which a new conversation calls: its interpreter is
 * new, nothing planted earlier survives; a custom tool's name is unique and never a built-in's
 * (defineCustomTool refuses those).
 */
import { LazyPyodideSandbox } from '../sandbox/lazy-pyodide-sandbox';
import { braveSearchTool } from '../tools/brave-search';
import { codeInterpreterTool } from '../tools/code-interpreter';
import { defineCustomTool, type CustomToolSpec } from '../tools/custom-tool';
import { LocalSearchIndex, type LocalDocument } from '../tools/local-search';
import { proxyServicesOnce } from '../tools/proxy-services';
import type { ToolProvider } from '../tools/tool-provider';
import type { Tool } from '../tools/tool';
import { wolframAlphaTool } from '../tools/wolfram-alpha';
import type { DocumentStore, StoredDocuments } from './document-store';
import type { BuiltinToolId } from './settings';

export interface ToolBoxOptions {
  /** Absolute URL of Pyodide's files (public/pyodide/), ending in "/". */
  pyodideBaseUrl: string;
  /** Where the sandbox's hidden iframe goes (the widget keeps it inside its shadow root). */
  container?: HTMLElement;
  /** The local index's bundled documents (public/local-search/corpus.json); without it no local providers. */
  demoCorpusUrl?: string;
  /** Keeps the user's documents across reloads (the chat page: IndexedDB); without it they live for the page's life. */
  documentStore?: DocumentStore;
}

/** What adding documents did: how many of the user's the index holds, and whether they were kept for later visits. */
export interface AddedDocuments {
  total: number;
  /** True: stored on this device (documentStore); false: for this page only, `why` says why when storing failed. */
  kept: boolean;
  why?: string;
}

export class ToolBox {
  private sandbox: LazyPyodideSandbox | null = null;
  private readonly custom = new Map<string, Tool>();
  private localIndex: Promise<LocalSearchIndex> | null = null;
  private readonly ownUrls = new Set<string>();

  constructor(private readonly o: ToolBoxOptions) {}

  /** Registers a host tool (validated by defineCustomTool); replaces one of the same name. */
  register(spec: CustomToolSpec): Tool {
    const tool = defineCustomTool(spec);
    this.custom.set(tool.name, tool);
    return tool;
  }

  unregister(name: string): boolean {
    return this.custom.delete(name);
  }

  get customNames(): string[] {
    return [...this.custom.keys()];
  }

  tools(enabled: Record<BuiltinToolId, boolean>, proxyEndpoint: string, provider: ToolProvider = 'auto'): Tool[] {
    const out: Tool[] = [];
    // Without a corpus the tools have no local provider, and `provider` means the services (their default).
    const local = this.o.demoCorpusUrl !== undefined;
    // One ask of where the proxy sends queries serves both query tools.
    const services = proxyServicesOnce(proxyEndpoint);
    if (enabled.brave_search) out.push(braveSearchTool({ proxyBase: proxyEndpoint, provider, services, ...(local ? { localIndex: () => this.loadLocalIndex() } : {}) }));
    if (enabled.wolfram_alpha) out.push(wolframAlphaTool({ proxyBase: proxyEndpoint, provider, services, localMath: local }));
    if (enabled.code_interpreter) out.push(codeInterpreterTool(this.pythonSandbox()));
    out.push(...this.custom.values());
    return out;
  }

  /** Starts Python in the background when the code interpreter is on (a cold start takes seconds). */
  warm(enabled: Record<BuiltinToolId, boolean>): void {
    if (enabled.code_interpreter) void this.pythonSandbox().warm().catch(() => {});
  }

  /** Ends the Python interpreter (and anything it runs); the next code call gets a fresh one. */
  resetPython(): void {
    this.sandbox?.dispose();
    this.sandbox = null;
  }

  dispose(): void {
    this.sandbox?.dispose();
    this.sandbox = null;
  }

  /** The user's own documents join the local index, and the store when there is one. */
  async addDocuments(documents: readonly LocalDocument[]): Promise<AddedDocuments> {
    (await this.loadLocalIndex()).add(documents);
    for (const d of documents) this.ownUrls.add(d.url);
    const store = this.o.documentStore;
    if (!store) return { total: this.ownUrls.size, kept: false };
    try {
      await store.put(documents);
      return { total: this.ownUrls.size, kept: true };
    } catch (e) {
      return { total: this.ownUrls.size, kept: false, why: e instanceof Error ? e.message : String(e) };
    }
  }

  /** The user's documents kept from earlier visits, now in the index: how many, and how many records could not be read. */
  async restoredDocuments(): Promise<{ total: number; unreadable: number }> {
    // Nothing stored: the demo corpus is not fetched until the first search.
    const stored = await this.readStored();
    if (!stored || stored.documents.length + stored.unreadable === 0) return { total: this.ownUrls.size, unreadable: 0 };
    await this.loadLocalIndex();
    return { total: this.ownUrls.size, unreadable: this.unreadableDocuments };
  }

  /** Removes the user's documents from the index and from the store; the demo corpus stays. */
  async forgetDocuments(): Promise<void> {
    await this.o.documentStore?.clear();
    this.ownUrls.clear();
    this.unreadableDocuments = 0;
    this.stored = null;
    this.localIndex = null;
  }

  private unreadableDocuments = 0;
  private stored: Promise<StoredDocuments | undefined> | null = null;

  /** The store's documents, read once per index (restoredDocuments and the index share the read); undefined when it will not open. */
  private readStored(): Promise<StoredDocuments | undefined> {
    this.stored ??= this.o.documentStore ? this.o.documentStore.all().catch(() => undefined) : Promise.resolve(undefined);
    return this.stored;
  }

  /** The demo corpus (fetched once; a failed fetch is retried on the next search) and the stored documents. */
  private loadLocalIndex(): Promise<LocalSearchIndex> {
    this.localIndex ??= fetch(this.o.demoCorpusUrl!)
      .then(async (r) => {
        if (!r.ok) throw new Error(`the local index's documents are missing (HTTP ${r.status} for ${this.o.demoCorpusUrl})`);
        const index = new LocalSearchIndex((await r.json()) as LocalDocument[]);
        // Storage that will not open leaves the demo corpus searchable: the user's documents are then missing, not the index.
        const stored = await this.readStored();
        if (stored) {
          index.add(stored.documents);
          for (const d of stored.documents) this.ownUrls.add(d.url);
          this.unreadableDocuments = stored.unreadable;
        }
        return index;
      })
      .catch((e: unknown) => {
        this.localIndex = null;
        throw e;
      });
    return this.localIndex;
  }

  private pythonSandbox(): LazyPyodideSandbox {
    this.sandbox ??= new LazyPyodideSandbox({ assetBaseUrl: this.o.pyodideBaseUrl, ...(this.o.container ? { container: this.o.container } : {}) });
    return this.sandbox;
  }
}
