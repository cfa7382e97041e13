/**
 * The chat page: the model picker and load progress, the saved conversations, settings (with what
 * will actually run) and cached models in the sidebar; the conversation with tool cards, the
 * composer and the context meter in the middle; the raw-prompt inspector on demand. Composes the
 * session (chat-session.ts), the library (chat-library.ts), the loader and the views; holds no logic
 * of its own beyond wiring and layout state.
 *
 * Invariants: Send is enabled only while a model is loaded, and the composer says why otherwise (the
 * widget does the same); a download over 100 MB is confirmed first (download-plan.ts); on reload the
 * last conversation comes back, and the last model loads by itself when that needs no download.
 */
import type { EngineClient } from '../engine/client';
import { EngineError } from '../engine/errors';
import { examplesFor, MODEL_EXAMPLES } from '../engine/model-examples';
import { MODELS } from '../engine/models';
import { ChatLibrary } from './chat-library';
import { ChatSession } from './chat-session';
import { indexedDbConversationStore, type ConversationStore } from './conversation-store';
import { indexedDbDocumentStore, type DocumentStore } from './document-store';
import { h } from './dom';
import { downloadQuestion, modelHosts } from './download-plan';
import { effectiveSettings } from './effective-settings';
import { recordCspViolations } from './host-probe';
import { explainLoadFailure } from './load-failure';
import { completeCachedIds } from './model-cache';
import { modelChoices } from './model-choices';
import { ModelLoader, type LoadState } from './model-loader';
import { LAST_CONVERSATION_KEY, LAST_MODEL_KEY, remembered } from './page-memory';
import { samplingOf, type Settings, type SettingsStore } from './settings';
import { ToolBox } from './tool-box';
import { ExternalTools } from './external-tools';
import { localMcpServerStore, type McpServerStore } from './mcp-server-store';
import { McpServersView } from './views/mcp-servers-view';
import { AllowedToolsView } from './views/allowed-tools-view';
import { CachePanel } from './views/cache-panel';
import { Composer } from './views/composer';
import { ConfirmDialog } from './views/confirm-dialog';
import { ContextMeter } from './views/context-meter';
import { ConversationList } from './views/conversation-list';
import { QuestionDialog, type Question } from './views/question-dialog';
import { EmptyState } from './views/empty-state';
import { errorBox } from './views/error-box';
import { InspectorView } from './views/inspector-view';
import { ModelPanel } from './views/model-panel';
import { ServerPicker } from './views/server-picker';
import { LocalDocumentsView } from './views/local-documents-view';
import { SettingsPanel } from './views/settings-panel';
import { TranscriptView } from './views/transcript-view';

export interface ChatPageOptions {
  engine: EngineClient;
  /** Absolute URL of models/ (for the cache list's local copies). */
  modelsBaseUrl: string;
  /** Absolute URL of Pyodide's files. */
  pyodideBaseUrl: string;
  /** Absolute URL of the local search index's demo corpus. */
  demoCorpusUrl: string;
  settings: SettingsStore;
  /** Where conversations are kept (default: IndexedDB). */
  conversations?: ConversationStore;
  /** Where the user's documents for local search are kept (default: IndexedDB). */
  documents?: DocumentStore;
  /** Pre-select this model instead of the recommendation (e.g. from `?model=`). */
  initialModel?: string;
  /** Keeps the MCP servers of Settings (default: this browser's localStorage). */
  mcpServers?: McpServerStore;
}

const label = (id: string) => MODELS.find((m) => m.id === id)?.label ?? id;

export class ChatPage {
  readonly el: HTMLElement;
  readonly session: ChatSession;
  readonly loader: ModelLoader;
  readonly library: ChatLibrary;
  readonly tools: ToolBox;
  /** MCP servers from Settings → "MCP servers". */
  readonly external = new ExternalTools();
  private settings: Settings;
  private readonly lastModel = remembered(LAST_MODEL_KEY);
  private readonly modelPanel: ModelPanel;
  private readonly settingsPanel: SettingsPanel;
  private readonly composer: Composer;
  private readonly emptyState: EmptyState;
  private readonly meter = new ContextMeter();

  constructor(private readonly o: ChatPageOptions) {
    recordCspViolations();
    this.settings = o.settings.load();
    const downloads = new QuestionDialog('download-dialog');
    this.modelPanel = new ModelPanel((id) => void this.load(id));
    this.loader = new ModelLoader(o.engine, {
      ask: (id) => this.askDownload(id, downloads),
      diagnose: (id, error) => explainLoadFailure(error, MODELS.find((m) => m.id === id), MODELS),
    });
    this.tools = new ToolBox({ pyodideBaseUrl: o.pyodideBaseUrl, demoCorpusUrl: o.demoCorpusUrl, documentStore: o.documents ?? indexedDbDocumentStore() });
    const dialog = new ConfirmDialog();
    const mcpView = new McpServersView(this.external, o.mcpServers ?? localMcpServerStore());
    this.session = new ChatSession({
      engine: o.engine,
      tokenizer: () => o.engine.tokenizer,
      model: () => this.loader.info,
      tools: () => this.external.tools(this.tools.tools(this.settings.tools, this.settings.proxyEndpoint, this.settings.searchAndMath), (server, tool) => mcpView.enabled(server, tool)),
      settings: () => ({ sampling: samplingOf(this.settings), maxSteps: this.settings.maxSteps, maxTokensPerStep: this.settings.maxTokensPerStep, confirmOnDevice: this.settings.confirmOnDevice, contextPolicy: this.settings.contextPolicy }),
      confirm: (call, signal, where) => dialog.ask(call, signal, where),
      onClear: () => {
        this.tools.resetPython();
        if (this.loader.info) this.tools.warm(this.settings.tools);
      },
    });
    this.library = new ChatLibrary({
      store: o.conversations ?? indexedDbConversationStore(),
      session: this.session,
      model: () => this.loader.info?.modelId ?? null,
      lastOpen: remembered(LAST_CONVERSATION_KEY),
    });

    this.modelPanel.addSource(new ServerPicker({ onLoad: (source) => void this.loader.load(source, this.settings.device) }).el);
    this.settingsPanel = new SettingsPanel(this.settings, (s) => {
      this.settings = s;
      o.settings.save(s);
      if (this.loader.info) this.tools.warm(s.tools);
      this.showReadiness();
    });
    const documents = new LocalDocumentsView(this.tools);
    this.settingsPanel.el.append(new AllowedToolsView(this.session).el, documents.el, mcpView.el);
    void documents.showRestored();
    void mcpView.restore();
    const deletions = new QuestionDialog('delete-dialog');
    const askDelete = (q: Question) => deletions.ask(q);
    const cachePanel = new CachePanel(MODELS, o.modelsBaseUrl, (cached) => this.modelPanel.setCached(completeCachedIds(MODELS, cached, o.modelsBaseUrl)), askDelete);
    const chats = new ConversationList(this.library, askDelete);
    this.emptyState = new EmptyState((text) => this.composer.fill(text));
    const transcript = new TranscriptView(this.session, this.emptyState.el);
    this.composer = new Composer({ onSend: (text) => void this.session.send(text), onStop: () => this.session.stop() });
    this.composer.el.id = 'composer';
    this.composer.footer.append(this.meter.el);
    const inspector = new InspectorView(this.session, () => o.engine.tokenizer);

    const pill = h('span', { class: 'model-pill', role: 'status' }, 'No model loaded');
    const sidebar = h('aside', { class: 'sidebar', id: 'sidebar', 'aria-label': 'Model, conversations and settings' }, this.modelPanel.el, chats.el, this.settingsPanel.el, cachePanel.el);
    const sidebarToggle = h('button', { type: 'button', class: 'secondary small toggle-sidebar', 'aria-controls': 'sidebar', 'aria-expanded': 'true' }, 'Model & chats');
    const inspectorPane = h(
      'aside',
      { class: 'inspector-pane', id: 'inspector', hidden: true, 'aria-label': 'Inspector' },
      h('button', { type: 'button', class: 'secondary small close-inspector', 'aria-label': 'Close the inspector' }, 'Close'),
      inspector.el,
    );
    const inspectorToggle = h('button', { type: 'button', class: 'secondary small toggle-inspector', 'aria-controls': 'inspector', 'aria-expanded': 'false' }, 'Inspector');
    const setInspector = (open: boolean) => {
      inspectorPane.hidden = !open;
      inspector.setShown(open);
      inspectorToggle.setAttribute('aria-expanded', String(open));
      this.el.classList.toggle('inspector-open', open);
      if (open) inspectorPane.querySelector<HTMLElement>('.close-inspector')?.focus();
      else inspectorToggle.focus();
    };
    inspectorToggle.addEventListener('click', () => setInspector(inspectorPane.hidden));
    inspectorPane.querySelector('.close-inspector')!.addEventListener('click', () => setInspector(false));
    inspectorPane.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && !this.session.busy) setInspector(false);
    });
    const setSidebar = (open: boolean) => {
      sidebarToggle.setAttribute('aria-expanded', String(open));
      this.el.classList.toggle('sidebar-collapsed', !open);
    };
    sidebarToggle.addEventListener('click', () => setSidebar(sidebarToggle.getAttribute('aria-expanded') !== 'true'));

    this.el = h(
      'div',
      { class: 'llama-root chat-page' },
      h('a', { class: 'skip-link', href: '#composer' }, 'Skip to the message box'),
      h(
        'header',
        { class: 'topbar' },
        h('h1', {}, 'Llama 3.1 agent'),
        pill,
        h('div', { class: 'topbar-actions' }, sidebarToggle, h('button', { type: 'button', class: 'secondary small new-chat', onclick: () => void this.library.newChat() }, 'New chat'), inspectorToggle),
      ),
      sidebar,
      h('main', { class: 'chat' }, transcript.el, this.composer.el),
      inspectorPane,
      dialog.el,
      downloads.el,
      deletions.el,
    );
    this.composer.bindEscape(this.el);

    this.session.on((e) => {
      if (e.type === 'busy') this.composer.setBusy(e.busy);
      if (e.type === 'agent' && e.event.type === 'step-finish') this.meter.show(e.event.stats.promptTokens + e.event.stats.decodedTokens, this.loader.info?.contextWindow ?? null);
      if (e.type === 'turn-end' || e.type === 'switched' || e.type === 'cleared') this.showContext();
    });
    this.loader.on((state) => {
      this.modelPanel.showLoad(state);
      this.showReadiness();
      if (state.kind === 'loaded') {
        pill.textContent = `${label(state.info.modelId)} · ${state.info.device}`;
        pill.dataset.state = 'loaded';
        this.lastModel.set(state.info.modelId);
        this.tools.warm(this.settings.tools);
        void cachePanel.refresh();
        this.showContext();
        setSidebar(false); // folds it away on narrow screens only (wide layouts always show it)
        this.composer.focus();
      } else if (state.kind === 'loading') {
        pill.textContent = 'Loading…';
        pill.dataset.state = 'loading';
      } else if (state.kind === 'failed') {
        pill.textContent = state.kept ? `${label(state.kept.modelId)} · ${state.kept.device}` : 'No model loaded';
        pill.dataset.state = state.kept ? 'loaded' : 'failed';
      }
    });
    this.showReadiness();

    void this.init(cachePanel, chats);
  }

  /** Loads a model with the device from the settings (asking first before a big download). */
  load(modelId: string): Promise<unknown> {
    return this.loader.load(modelId, this.settings.device);
  }

  private async init(cachePanel: CachePanel, chats: ConversationList): Promise<void> {
    const reopened = this.library.reopenLast();
    try {
      const caps = await withTimeout(this.o.engine.capabilities(), 30_000, 'The engine worker did not start (no answer in 30 s): reload the page; if it persists, this browser may not support module workers');
      const deviceMemoryGB = (navigator as { deviceMemory?: number }).deviceMemory;
      this.modelPanel.setChoices(modelChoices(MODELS, caps, deviceMemoryGB === undefined ? {} : { deviceMemoryGB }), this.o.initialModel);
      this.el.dataset.ready = 'true';
    } catch (e) {
      this.modelPanel.el.append(errorBox(e));
    }
    await Promise.all([cachePanel.refresh(), chats.refresh(), reopened]);
    this.autoLoad();
  }

  /** The model loaded last time, again, when that needs no download (served here, or already cached). */
  private autoLoad(): void {
    const id = this.lastModel.get();
    const entry = id ? MODELS.find((m) => m.id === id) : undefined;
    if (!entry || this.loader.state.kind !== 'idle') return;
    if (modelHosts(entry).length > 0 && !this.modelPanel.isCached(entry.id)) return;
    this.modelPanel.select.value = entry.id;
    this.modelPanel.select.dispatchEvent(new Event('change'));
    void this.load(entry.id);
  }

  private askDownload(id: string, dialog: QuestionDialog): Promise<boolean> {
    const fit = this.modelPanel.fitOf(id);
    const downlink = (navigator as { connection?: { downlink?: number } }).connection?.downlink;
    const question = fit ? downloadQuestion(fit, this.modelPanel.isCached(id), downlink) : null;
    return question ? dialog.ask(question) : Promise.resolve(true);
  }

  /** Send's state and the empty screen follow the loader: what to do first, or what to ask. */
  private showReadiness(): void {
    const s: LoadState = this.loader.state;
    const info = this.loader.info;
    const model = info ? label(info.modelId) : '';
    this.settingsPanel.showEffective(info ? `What runs with ${model}` : 'What runs (no model loaded yet)', effectiveSettings(this.settings, info, model));
    const running = s.kind === 'loaded' ? s.info : s.kind === 'failed' ? s.kept : null;
    if (running) {
      this.composer.setReady(true);
      const entry = MODELS.find((m) => m.id === running.modelId);
      const examples = entry ? examplesFor(MODEL_EXAMPLES, entry, (t) => this.settings.tools[t]) : [];
      this.emptyState.showExamples(model, examples, `${model} is ready. Its example questions need tools that are off: turn them on in Settings, or ask your own.`);
      return;
    }
    const reason =
      s.kind === 'loading'
        ? `Loading ${label(s.modelId)}… Send works once it is ready.`
        : s.kind === 'failed'
          ? `${label(s.modelId)} did not load (see Model): press Load again or pick another model.`
          : 'No model is loaded: pick one under Model and press Load.';
    this.composer.setReady(false, reason);
    this.emptyState.showHint(`${reason} Tools run in your browser; web search and Wolfram|Alpha ask before they send anything.`);
  }

  private showContext(): void {
    const window = this.loader.info?.contextWindow ?? null;
    this.meter.show(window === null ? null : this.session.contextTokens(), window);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new EngineError('internal', message)), ms);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}
