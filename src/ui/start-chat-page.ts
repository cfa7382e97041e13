/**
 * Mounts the chat page on a started engine: the page's own entry (main.ts) passes the product engine
 * worker; a test entry may pass another engine client. The URL's `?model=` picks the first model.
 */
import type { EngineClient } from '../engine/client';
import type { EngineConfig } from '../engine/contract';
import { DEMO_CORPUS_PUBLIC_PATH } from '../tools/local-search';
import { ChatPage } from './chat-page';
import { localSettingsStore } from './settings';
import { installStyles } from './styles';

const here = (path: string) => new URL(path, location.href).href;

/** Where the page's engine finds models and onnxruntime's WASM: the site's root. */
export function pageEngineConfig(): EngineConfig {
  return { modelsBaseUrl: here('/models/'), wasmBaseUrl: here('/ort/') };
}

export function startChatPage(engine: EngineClient): ChatPage {
  const modelParam = new URLSearchParams(location.search).get('model');
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
  return page;
}
