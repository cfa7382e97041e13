/**
 * The chat page's entry: starts the engine worker and mounts the page. Only with `?test-hooks` in the
 * URL it loads the test hooks (test-hooks.ts: the test engine worker and `window.llamaTest`).
 */
import { EngineClient } from '../engine/client';
import { ChatPage } from './chat-page';
import { installStyles } from './styles';
import { localSettingsStore } from './settings';
import { DEMO_CORPUS_PUBLIC_PATH } from '../tools/local-search';

const here = (path: string) => new URL(path, location.href).href;
const params = new URLSearchParams(location.search);
const config = { modelsBaseUrl: here('/models/'), wasmBaseUrl: here('/ort/') };
const hooks = params.has('test-hooks') ? await import('./test-hooks') : null;
const testEngine = hooks?.startTestEngine(config) ?? null;
const engine = testEngine ?? EngineClient.start(config);
const modelParam = params.get('model');
const page = new ChatPage({
  engine,
  modelsBaseUrl: here('/models/'),
  pyodideBaseUrl: here('/pyodide/'),
  demoCorpusUrl: here(`/${DEMO_CORPUS_PUBLIC_PATH}`),
  settings: localSettingsStore(),
  ...(modelParam ? { initialModel: modelParam } : {}),
});
installStyles(document);
document.querySelector('#app')?.replaceWith(page.el);
if (hooks && testEngine) hooks.installTestHooks(page, testEngine);
