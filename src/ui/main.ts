/**
 * The chat page's entry: starts the engine worker, mounts the page, and — only with `?test-hooks`
 * in the URL — exposes `window.llamaTest` for the browser tests (see test-hooks.ts).
 */
import { EngineClient } from '../engine/client';
import { ChatPage } from './chat-page';
import { installStyles } from './styles';
import { localSettingsStore } from './settings';
import { installTestHooks } from './test-hooks';

const here = (path: string) => new URL(path, location.href).href;
const params = new URLSearchParams(location.search);
const engine = EngineClient.start({ modelsBaseUrl: here('/models/'), wasmBaseUrl: here('/ort/') });
const modelParam = params.get('model');
const page = new ChatPage({
  engine,
  modelsBaseUrl: here('/models/'),
  pyodideBaseUrl: here('/pyodide/'),
  settings: localSettingsStore(),
  ...(modelParam ? { initialModel: modelParam } : {}),
});
installStyles(document);
document.querySelector('#app')?.replaceWith(page.el);
if (params.has('test-hooks')) installTestHooks(page);
