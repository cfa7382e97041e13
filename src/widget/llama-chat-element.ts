/**
 * `<llama-chat>`: the chat as an embeddable custom element. Shadow DOM (styles neither leak in nor
 * out); its engine worker, models, onnxruntime and Pyodide come from the widget's own origin.
 *
 * Attributes (read when the model loads or a message is sent):
 *   model           model id from models/models.json (default: the recommendation for this device);
 *                   with engine-url, the served model's name (vLLM needs it; llama-server serves one)
 *   engine-url      an engine server (vLLM, llama-server) that runs the model instead of this browser:
 *                   a proxy that adds its key, such as the dev/preview server's /api/engine/ (relative
 *                   URLs resolve against the host page); never a URL with credentials
 *   tools           built-in tools, space- or comma-separated: code_interpreter brave_search
 *                   wolfram_alpha (default: code_interpreter; "none" for none)
 *   proxy-endpoint  tool proxy base URL for brave_search / wolfram_alpha (default: <widget origin>/api/tools/)
 *   search-and-math auto | service | local: who answers brave_search / wolfram_alpha — the services
 *                   through the proxy, this device (a local index over the demo corpus and the host's
 *                   addDocuments(), mathjs), or auto (default: the services, this device when the
 *                   proxy has no key or there is none)
 *   assets-base     folder holding models/, ort/ and pyodide/ (default: the widget module's folder)
 *   device          auto | webgpu | wasm, for ONNX models (default auto)
 *   autoload        load the model as soon as the element is connected
 *   heading         the title shown in the header (default "Assistant")
 *   mcp-servers     MCP servers over Streamable HTTP, space-separated URLs (read once, when the element
 *                   starts): their tools join the model's; the host's policy must allow their origins
 *                   (cspSources lists them)
 *   webmcp          offer the tools this page registered on document.modelContext (WebMCP, native or
 *                   @mcp-b/webmcp-polyfill); read before every step of a run
 *
 * The header names the model with its download size and has Load model and New chat; Send is off
 * until the model is loaded (as on the chat page: the box says why), and a download over 100 MB is
 * confirmed first (download-plan.ts), whoever starts it — the Load button, `autoload` or `send()`.
 *
 * JS API: registerTool(spec) / unregisterTool(name) for the host's own tools (see CustomToolSpec),
 * addMcpServer(url, {bearerToken, prefix, trustReadOnly}) for an MCP server (resolves to its state and tools),
 * addDocuments([{title, url, text}]) for the local search index, load(), send(text) (loads the model first if needed), stop(), clear(), messages. Events (bubbling,
 * composed, detail as listed):
 *   llama-load {state}          the load state changed (loading with progress, loaded, failed)
 *   llama-agent-event {event}   every event of the agent loop (text-delta, tool-call, step-finish…)
 *   llama-answer {text, reason} a turn ended; text is the final answer prose
 *   llama-error {error}         a run or a load failed: {name, code, message}
 */
import type { EngineConfig, LoadedModelInfo } from '../engine/contract';
import { EngineClient } from '../engine/client';
import { serializeError } from '../engine/errors';
import { examplesFor, MODEL_EXAMPLES } from '../engine/model-examples';
import { MODELS } from '../engine/models';
import type { Message } from '../format/types';
import { defineCustomTool, type CustomToolSpec } from '../tools/custom-tool';
import { DEMO_CORPUS_PUBLIC_PATH, type LocalDocument } from '../tools/local-search';
import { parseToolProvider, type ToolProvider } from '../tools/tool-provider';
import { ChatSession } from '../ui/chat-session';
import { h, replace } from '../ui/dom';
import { downloadQuestion } from '../ui/download-plan';
import { formatBytes } from '../ui/format-units';
import { recordCspViolations } from '../ui/host-probe';
import { explainLoadFailure } from '../ui/load-failure';
import { modelChoices, type ModelChoices } from '../ui/model-choices';
import { ModelLoader, type LoadState } from '../ui/model-loader';
import { parseContextPolicy, type ContextPolicy } from '../agent/context-policy';
import { BUILTIN_TOOL_IDS, DEFAULT_SETTINGS, samplingOf, type BuiltinToolId } from '../ui/settings';
import { installStyles } from '../ui/styles';
import { ToolBox } from '../ui/tool-box';
import { ExternalTools, type HttpServerOptions } from '../ui/external-tools';
import { pageModelContext } from '../tools/webmcp/webmcp-tools';
import { Composer } from '../ui/views/composer';
import { ConfirmDialog } from '../ui/views/confirm-dialog';
import { ContextMeter } from '../ui/views/context-meter';
import { QuestionDialog } from '../ui/views/question-dialog';
import { EmptyState } from '../ui/views/empty-state';
import { errorBox } from '../ui/views/error-box';
import { ProgressView } from '../ui/views/progress-view';
import { TranscriptView } from '../ui/views/transcript-view';
import { defaultAssetsBase } from './engine-start';
import { hostCspSources, type HostCsp } from './host-csp';
import widgetCss from './widget.css?inline';

export class LlamaChatElement extends HTMLElement {
  static readonly observedAttributes = ['model', 'heading', 'engine-url'];

  private engine: EngineClient | null = null;
  private loader: ModelLoader | null = null;
  private session: ChatSession | null = null;
  private toolBox: ToolBox | null = null;
  private readonly pendingTools: CustomToolSpec[] = [];
  private readonly pendingDocuments: LocalDocument[] = [];
  private readonly external = new ExternalTools();
  /** The `mcp-servers` attribute's servers, connecting (a run waits for them). */
  private attributeServers: Promise<unknown> | null = null;
  private ui: {
    title: HTMLElement;
    model: HTMLElement;
    loadButton: HTMLButtonElement;
    status: HTMLElement;
    progress: ProgressView;
    composer: Composer;
    empty: EmptyState;
    meter: ContextMeter;
  } | null = null;
  private disposeTimer = 0;
  /** This device's verdict on every model, once the engine has answered (null before, or when it cannot start). */
  private choices: ModelChoices | null = null;

  connectedCallback(): void {
    clearTimeout(this.disposeTimer);
    if (!this.shadowRoot) this.build();
    if (this.hasAttribute('autoload')) void this.load();
  }

  disconnectedCallback(): void {
    // Moving the element (disconnect + connect in one task) keeps the engine; removing it frees it.
    this.disposeTimer = window.setTimeout(() => {
      if (!this.isConnected) this.dispose();
    }, 0);
  }

  attributeChangedCallback(name: string): void {
    if (!this.ui) return;
    if (name === 'heading') this.ui.title.textContent = this.getAttribute('heading') || 'Assistant';
    if (name === 'model' || name === 'engine-url') this.showModel();
  }

  /**
   * Adds the host's own documents to the local search index (brave_search answers from it when the
   * proxy has no key, there is none, or `search-and-math="local"`); resolves to how many it holds.
   */
  async addDocuments(documents: LocalDocument[]): Promise<number> {
    this.pendingDocuments.push(...documents);
    return this.toolBox ? (await this.toolBox.addDocuments(this.pendingDocuments.splice(0))).total : this.pendingDocuments.length;
  }

  /** Registers a host tool the model can call (validated now; throws CustomToolDefinitionError). */
  registerTool(spec: CustomToolSpec): void {
    if (this.toolBox) {
      this.toolBox.register(spec);
      return;
    }
    defineCustomTool(spec); // validates now: a bad spec throws here, not at the first message
    this.unregisterPending(spec.name);
    this.pendingTools.push(spec);
  }

  unregisterTool(name: string): boolean {
    return this.toolBox?.unregister(name) ?? this.unregisterPending(name);
  }

  private unregisterPending(name: string): boolean {
    const i = this.pendingTools.findIndex((t) => t.name === name);
    if (i >= 0) this.pendingTools.splice(i, 1);
    return i >= 0;
  }

  /**
   * Adds an MCP server over Streamable HTTP (its URL is fixed here: nothing the model emits changes it)
   * and connects it; resolves to its state, why it failed, and the tools it offers the model.
   * A URL that is not absolute http(s), or that holds credentials, throws McpUrlError.
   */
  async addMcpServer(url: string, options: HttpServerOptions = {}): Promise<{ server: string; state: string; error?: string; tools: string[] }> {
    const connection = await this.external.addHttpServer(url, options);
    const offered = (await this.external.tools([])).filter((t) => connection.owns(t)).map((t) => t.name);
    return { server: connection.spec.label, state: connection.state, ...(connection.lastError ? { error: connection.lastError } : {}), tools: offered };
  }

  /** The tools of a run (read again before each step): built-ins, host tools, MCP servers', WebMCP's. */
  private async runTools() {
    await this.attributeServers;
    this.external.useWebMcp(this.hasAttribute('webmcp') ? pageModelContext(document) : null);
    return this.external.tools(this.toolBox!.tools(this.enabledTools(), this.proxyEndpoint(), this.searchAndMath()));
  }

  /** The `mcp-servers` attribute's URLs. */
  private mcpServerUrls(): string[] {
    return (this.getAttribute('mcp-servers') ?? '').split(/\s+/).filter(Boolean);
  }

  /** Loads the model named by the `model` attribute (or the recommendation), or the `engine-url` server's. */
  async load(): Promise<LoadedModelInfo | null> {
    if (!this.loader || !this.engine) this.build();
    const server = this.engineUrl();
    if (server) {
      const model = this.getAttribute('model');
      return this.loader!.load({ kind: 'server', url: server, ...(model ? { model } : {}) });
    }
    const id = await this.modelId();
    return this.loader!.load(id, this.device());
  }

  /** Sends a message (loading the model first if needed); resolves when the answer is complete. */
  async send(text: string): Promise<void> {
    if (!this.session) this.build();
    if (!this.loader!.info && !(await this.load())) return;
    await this.session!.send(text);
  }

  stop(): void {
    this.session?.stop();
  }

  /** Starts a new chat; a run going on is stopped first and its turn kept in the chat it was in. */
  clear(): Promise<void> {
    return this.session?.clear() ?? Promise.resolve();
  }

  /**
   * The sources a host page's Content-Security-Policy must allow for this element, per directive
   * (README: "Embedding under a Content-Security-Policy"). They depend on the widget's build (the
   * sandbox script's hash) and on this element's assets-base and proxy-endpoint.
   */
  cspSources(): Promise<HostCsp> {
    return hostCspSources({
      moduleUrl: import.meta.url,
      assetsBase: this.assetsBase(),
      proxyEndpoint: this.proxyEndpoint(),
      remoteModelUrls: MODELS.flatMap((m) => (m.backend === 'webllm' ? [m.modelUrl, m.modelLib] : [])),
      ...(this.engineUrl() ? { engineUrl: this.engineUrl()! } : {}),
      mcpServerUrls: [...this.mcpServerUrls(), ...this.external.mcp.all.map((c) => c.spec.label)],
    });
  }

  /** The conversation so far (raw emitted text and ids included). */
  get messages(): Message[] {
    return this.session?.transcript ?? [];
  }

  /**
   * Starts the engine this element runs on: a worker of the page's own origin (an app that bundles the
   * element). The widget's build (index.ts) starts it from the widget's origin instead.
   */
  protected startEngine(config: EngineConfig): EngineClient {
    return EngineClient.start(config);
  }

  private assetsBase(): string {
    const base = this.getAttribute('assets-base');
    const url = new URL(base || defaultAssetsBase(), location.href).href;
    return url.endsWith('/') ? url : `${url}/`;
  }

  private device(): 'auto' | 'webgpu' | 'wasm' {
    const d = this.getAttribute('device');
    return d === 'webgpu' || d === 'wasm' ? d : 'auto';
  }

  private enabledTools(): Record<BuiltinToolId, boolean> {
    const attr = this.getAttribute('tools');
    const names = attr === null ? ['code_interpreter'] : attr.split(/[\s,]+/).filter(Boolean);
    return Object.fromEntries(BUILTIN_TOOL_IDS.map((t) => [t, names.includes(t)])) as Record<BuiltinToolId, boolean>;
  }

  /** The engine-url attribute resolved against the host page; null when absent. (The engine checks it.) */
  private engineUrl(): string | null {
    const attr = this.getAttribute('engine-url')?.trim();
    if (!attr) return null;
    try {
      return new URL(attr, location.href).href;
    } catch {
      return attr; // not a URL: the load says so in words
    }
  }

  /** `search-and-math`: auto (default), service or local (tool-provider.ts). */
  private searchAndMath(): ToolProvider {
    return parseToolProvider(this.getAttribute('search-and-math')) ?? 'auto';
  }

  /** `context-policy`: rolling (default), keep-first or stop (agent/context-policy.ts). */
  private get contextPolicy(): ContextPolicy {
    return parseContextPolicy(this.getAttribute('context-policy')) ?? 'rolling';
  }

  private proxyEndpoint(): string {
    return this.getAttribute('proxy-endpoint') || new URL('/api/tools/', this.assetsBase()).href;
  }

  /** The capability report's verdicts (asked once); null when the worker could not start. */
  private async modelChoices(): Promise<ModelChoices | null> {
    if (this.choices) return this.choices;
    // A worker that failed to start has no capabilities; loading then reports why (worker_failed).
    const caps = await this.engine!.capabilities().catch(() => null);
    if (!caps) return null;
    const deviceMemoryGB = (navigator as { deviceMemory?: number }).deviceMemory;
    this.choices = modelChoices(MODELS, caps, deviceMemoryGB === undefined ? {} : { deviceMemoryGB });
    this.showModel();
    return this.choices;
  }

  private async modelId(): Promise<string> {
    return this.getAttribute('model') || ((await this.modelChoices())?.defaultId ?? 'tiny-llama');
  }

  /** The model this element will load (its attribute, else the recommendation once known). */
  private plannedModel(): string | null {
    return this.getAttribute('model') || this.choices?.defaultId || null;
  }

  /** Asks before a download over 100 MB (the same question as the chat page). */
  private async askDownload(id: string, dialog: QuestionDialog): Promise<boolean> {
    const fit = (await this.modelChoices())?.choices.find((c) => c.id === id)?.fit;
    const downlink = (navigator as { connection?: { downlink?: number } }).connection?.downlink;
    const question = fit ? downloadQuestion(fit, false, downlink) : null;
    return question ? dialog.ask(question) : true;
  }

  /** The header names the model and its size; Send's state and the empty screen say what to do. */
  private showModel(): void {
    if (!this.ui) return;
    const state = this.loader?.state;
    const entry = (x: string | null) => (x ? MODELS.find((m) => m.id === x) : undefined);
    const named = (x: string | null) => {
      const m = entry(x);
      if (m) return `${m.label} · ${formatBytes(m.sizeBytes)}`;
      return x ?? (this.engineUrl() ? 'the engine server' : 'the recommended model');
    };
    const planned = this.plannedModel();
    const running = state?.kind === 'loaded' ? state.info : state?.kind === 'failed' ? state.kept : null;
    if (running) {
      const m = entry(running.modelId);
      this.ui.model.textContent = `${named(running.modelId)} · ${running.device}`;
      this.ui.composer.setReady(true);
      this.ui.empty.showExamples(m?.label ?? running.modelId, m ? examplesFor(MODEL_EXAMPLES, m, (t) => this.enabledTools()[t]) : [], 'Ask me anything.');
      return;
    }
    this.ui.model.textContent = named(planned);
    this.ui.loadButton.textContent = planned ? `Load ${entry(planned)?.label ?? planned}` : 'Load model';
    const reason =
      state?.kind === 'loading'
        ? 'Loading the model… Send works once it is ready.'
        : state?.kind === 'failed'
          ? 'The model did not load (see above): press Load model to try again.'
          : `Press Load model first (${named(planned)}).`;
    this.ui.composer.setReady(false, reason);
    this.ui.empty.showHint(reason);
  }

  private build(): void {
    if (this.engine) return;
    const root = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
    installStyles(root, widgetCss);
    const base = this.assetsBase();
    const config = { modelsBaseUrl: `${base}models/`, wasmBaseUrl: `${base}ort/` };
    this.engine = this.startEngine(config);
    recordCspViolations();
    const downloads = new QuestionDialog('download-dialog');
    this.loader = new ModelLoader(this.engine, {
      ask: (id) => this.askDownload(id, downloads),
      diagnose: (id, error) => explainLoadFailure(error, MODELS.find((m) => m.id === id), MODELS),
    });
    const sandboxHost = h('div', { class: 'sandbox-host', hidden: true });
    this.toolBox = new ToolBox({ pyodideBaseUrl: `${base}pyodide/`, container: sandboxHost, demoCorpusUrl: `${base}${DEMO_CORPUS_PUBLIC_PATH}` });
    for (const spec of this.pendingTools.splice(0)) this.toolBox.register(spec);
    this.attributeServers = Promise.allSettled(this.mcpServerUrls().map((url) => this.external.addHttpServer(url)));
    if (this.pendingDocuments.length) void this.toolBox.addDocuments(this.pendingDocuments.splice(0)).catch(() => {});
    const dialog = new ConfirmDialog();
    const engine = this.engine;
    const session = new ChatSession({
      engine,
      tokenizer: () => engine.tokenizer,
      model: () => this.loader?.info ?? null,
      tools: () => this.runTools(),
      settings: () => ({ sampling: samplingOf(DEFAULT_SETTINGS), maxSteps: DEFAULT_SETTINGS.maxSteps, maxTokensPerStep: DEFAULT_SETTINGS.maxTokensPerStep, contextPolicy: this.contextPolicy }),
      confirm: (call, signal, where) => dialog.ask(call, signal, where),
      onClear: () => {
        this.toolBox?.resetPython();
        if (this.loader?.info) this.toolBox?.warm(this.enabledTools());
      },
    });
    this.session = session;
    const empty = new EmptyState((text) => composer.fill(text));
    const transcript = new TranscriptView(session, empty.el);
    const composer = new Composer({ onSend: (text) => void session.send(text), onStop: () => session.stop(), placeholder: 'Message' });
    composer.bindEscape(root);
    const meter = new ContextMeter();
    composer.footer.append(meter.el);
    const progress = new ProgressView();
    const ui = {
      title: h('h2', {}, this.getAttribute('heading') || 'Assistant'),
      model: h('span', { class: 'widget-model' }),
      loadButton: h('button', { type: 'button', class: 'primary small load', onclick: () => void this.load() }, 'Load model'),
      status: h('div', { class: 'widget-status', role: 'status' }),
      progress,
      composer,
      empty,
      meter,
    };
    this.ui = ui;
    const newChat = h('button', { type: 'button', class: 'secondary small new-chat', onclick: () => void this.clear() }, 'New chat');
    root.append(
      h(
        'div',
        { class: 'llama-root widget', part: 'root' },
        h('div', { class: 'widget-header' }, h('div', { class: 'widget-heading' }, ui.title, ui.model), h('div', { class: 'widget-actions' }, ui.loadButton, newChat)),
        progress.el,
        ui.status,
        transcript.el,
        composer.el,
        dialog.el,
        downloads.el,
        sandboxHost,
      ),
    );
    this.showModel();
    void this.modelChoices();

    const showContext = () => meter.show(this.loader?.info ? session.contextTokens() : null, this.loader?.info?.contextWindow ?? null);
    session.on((e) => {
      if (e.type === 'busy') composer.setBusy(e.busy);
      if (e.type === 'turn-end' || e.type === 'switched' || e.type === 'cleared') showContext();
      if (e.type === 'agent' && e.event.type === 'step-finish') meter.show(e.event.stats.promptTokens + e.event.stats.decodedTokens, this.loader?.info?.contextWindow ?? null);
      if (e.type === 'agent') {
        this.fire('llama-agent-event', { event: e.event });
        if (e.event.type === 'finish') this.fire('llama-answer', { text: e.event.text, reason: e.event.reason });
        if (e.event.type === 'error') this.fire('llama-error', { error: e.event.error });
      }
    });
    this.loader.on((state) => this.onLoadState(state));
  }

  private onLoadState(state: LoadState): void {
    const ui = this.ui!;
    this.fire('llama-load', { state: state.kind === 'failed' ? { ...state, error: serializeError(state.error) } : state });
    replace(ui.status);
    switch (state.kind) {
      case 'loading':
        ui.loadButton.disabled = true;
        if (state.progress) ui.progress.update(state.progress);
        else ui.progress.start('Starting…');
        break;
      case 'loaded':
        ui.progress.hide();
        ui.loadButton.hidden = true;
        this.toolBox!.warm(this.enabledTools());
        break;
      case 'failed':
        ui.progress.hide();
        ui.loadButton.disabled = false;
        ui.status.append(errorBox(state.error, state.diagnosis ?? undefined));
        this.fire('llama-error', { error: serializeError(state.error) });
        break;
      case 'idle':
        break;
    }
    this.showModel();
  }

  private fire(type: string, detail: unknown): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  private dispose(): void {
    this.session?.stop();
    this.toolBox?.dispose();
    void this.external.close(); // its MCP connections end with the engine; a reconnected element connects its attribute's again
    this.engine?.terminate();
    this.engine = null;
    this.loader = null;
    this.session = null;
    this.toolBox = null;
    this.shadowRoot?.replaceChildren();
    this.ui = null;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'llama-chat': LlamaChatElement;
  }
}
