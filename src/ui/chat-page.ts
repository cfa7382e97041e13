/**
 * The chat page: model picker and load progress, settings and cached models in the sidebar, the
 * conversation with tool cards and the composer in the middle, the raw-prompt inspector on demand.
 * Composes the session (chat-session.ts), the loader and the views; holds no logic of its own
 * beyond wiring and layout state.
 */
import type { EngineClient } from '../engine/client';
import { EngineError } from '../engine/errors';
import { MODELS } from '../engine/models';
import { ChatSession } from './chat-session';
import { h } from './dom';
import { cachedModelIds } from './model-cache';
import { modelChoices } from './model-choices';
import { ModelLoader } from './model-loader';
import { samplingOf, type Settings, type SettingsStore } from './settings';
import { ToolBox } from './tool-box';
import { AllowedToolsView } from './views/allowed-tools-view';
import { CachePanel } from './views/cache-panel';
import { Composer } from './views/composer';
import { ConfirmDialog } from './views/confirm-dialog';
import { errorBox } from './views/error-box';
import { InspectorView } from './views/inspector-view';
import { ModelPanel } from './views/model-panel';
import { ServerPicker } from './views/server-picker';
import { SettingsPanel } from './views/settings-panel';
import { TranscriptView } from './views/transcript-view';

export interface ChatPageOptions {
  engine: EngineClient;
  /** Absolute URL of models/ (for the cache list's local copies). */
  modelsBaseUrl: string;
  /** Absolute URL of Pyodide's files. */
  pyodideBaseUrl: string;
  settings: SettingsStore;
  /** Pre-select this model instead of the recommendation (e.g. from `?model=`). */
  initialModel?: string;
}

export class ChatPage {
  readonly el: HTMLElement;
  readonly session: ChatSession;
  readonly loader: ModelLoader;
  readonly tools: ToolBox;
  private settings: Settings;

  constructor(private readonly o: ChatPageOptions) {
    this.settings = o.settings.load();
    this.loader = new ModelLoader(o.engine);
    this.tools = new ToolBox({ pyodideBaseUrl: o.pyodideBaseUrl });
    const dialog = new ConfirmDialog();
    this.session = new ChatSession({
      engine: o.engine,
      tokenizer: () => o.engine.tokenizer,
      model: () => this.loader.info,
      tools: () => this.tools.tools(this.settings.tools, this.settings.proxyEndpoint),
      settings: () => ({ sampling: samplingOf(this.settings), maxSteps: this.settings.maxSteps, maxTokensPerStep: this.settings.maxTokensPerStep }),
      confirm: (call, signal) => dialog.ask(call, signal),
      onClear: () => {
        this.tools.resetPython();
        if (this.loader.info) this.tools.warm(this.settings.tools);
      },
    });

    const modelPanel = new ModelPanel((id) => void this.load(id));
    modelPanel.addSource(new ServerPicker({ onLoad: (source) => void this.loader.load(source, this.settings.device) }).el);
    const settingsPanel = new SettingsPanel(this.settings, (s) => {
      this.settings = s;
      o.settings.save(s);
      if (this.loader.info) this.tools.warm(s.tools);
    });
    settingsPanel.el.append(new AllowedToolsView(this.session).el);
    const cachePanel = new CachePanel(MODELS, o.modelsBaseUrl, (cached) => modelPanel.setCached(cachedModelIds(MODELS, cached, o.modelsBaseUrl)));
    const transcript = new TranscriptView(this.session, 'Load a model, then ask something. Tools run in your browser; web search and Wolfram|Alpha ask before they send anything.');
    const composer = new Composer({ onSend: (text) => void this.session.send(text), onStop: () => this.session.stop() });
    composer.el.id = 'composer';
    const inspector = new InspectorView(this.session, () => o.engine.tokenizer);

    const pill = h('span', { class: 'model-pill', role: 'status' }, 'No model loaded');
    const sidebar = h('aside', { class: 'sidebar', id: 'sidebar', 'aria-label': 'Model and settings' }, modelPanel.el, settingsPanel.el, cachePanel.el);
    const sidebarToggle = h('button', { type: 'button', class: 'secondary small toggle-sidebar', 'aria-controls': 'sidebar', 'aria-expanded': 'true' }, 'Model & settings');
    const inspectorPane = h(
      'aside',
      { class: 'inspector-pane', id: 'inspector', hidden: true },
      h('button', { type: 'button', class: 'secondary small close-inspector', 'aria-label': 'Close the inspector' }, 'Close'),
      inspector.el,
    );
    const inspectorToggle = h('button', { type: 'button', class: 'secondary small toggle-inspector', 'aria-controls': 'inspector', 'aria-expanded': 'false' }, 'Inspector');
    const setInspector = (open: boolean) => {
      inspectorPane.hidden = !open;
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
        h('div', { class: 'topbar-actions' }, sidebarToggle, h('button', { type: 'button', class: 'secondary small new-chat', onclick: () => this.session.clear() }, 'New chat'), inspectorToggle),
      ),
      sidebar,
      h('main', { class: 'chat' }, transcript.el, composer.el),
      inspectorPane,
      dialog.el,
    );
    composer.bindEscape(this.el);

    this.session.on((e) => {
      if (e.type === 'busy') composer.setBusy(e.busy);
    });
    this.loader.on((state) => {
      modelPanel.showLoad(state);
      if (state.kind === 'loaded') {
        pill.textContent = `${MODELS.find((m) => m.id === state.info.modelId)?.label ?? state.info.modelId} · ${state.info.device}`;
        pill.dataset.state = 'loaded';
        this.tools.warm(this.settings.tools);
        void cachePanel.refresh();
        setSidebar(false); // folds it away on narrow screens only (wide layouts always show it)
        composer.focus();
      } else if (state.kind === 'loading') {
        pill.textContent = 'Loading…';
        pill.dataset.state = 'loading';
      } else if (state.kind === 'failed') {
        pill.textContent = 'No model loaded';
        pill.dataset.state = 'failed';
      }
    });

    void this.init(modelPanel, cachePanel);
  }

  /** Loads a model with the device from the settings. */
  load(modelId: string): Promise<unknown> {
    return this.loader.load(modelId, this.settings.device);
  }

  private async init(modelPanel: ModelPanel, cachePanel: CachePanel): Promise<void> {
    try {
      const caps = await withTimeout(this.o.engine.capabilities(), 30_000, 'The engine worker did not start (no answer in 30 s): reload the page; if it persists, this browser may not support module workers');
      const deviceMemoryGB = (navigator as { deviceMemory?: number }).deviceMemory;
      modelPanel.setChoices(modelChoices(MODELS, caps, deviceMemoryGB === undefined ? {} : { deviceMemoryGB }), this.o.initialModel);
      this.el.dataset.ready = 'true';
    } catch (e) {
      modelPanel.el.append(errorBox(e));
    }
    await cachePanel.refresh();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new EngineError('internal', message)), ms);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}
