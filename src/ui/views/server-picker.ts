/**
 * "A server…": the model picker's way to an engine server (vLLM, llama-server) instead of a model that
 * runs in this browser. A URL — by default this site's own /api/engine/, which its dev/preview server
 * forwards to LLAMA_ENGINE_URL with the key from its environment —, the model's name for servers that
 * serve several (vLLM), "Test connection" (what the server serves: its kind, its models, its context)
 * and "Load".
 *
 * Invariants: no API key is ever asked for or sent from here (a URL with credentials is refused, as
 * the engine refuses it); the URL is resolved against the page and checked before anything is sent;
 * a probe that is superseded by a newer one never writes its result.
 */
import type { ModelSource } from '../../engine/contract';
import { checkServerUrl } from '../../engine/server-url';
import { probeServer, type ServerInfo } from '../../engine/remote/probe-server';
import { h, replace, uid } from '../dom';
import { errorBox } from './error-box';

export const DEFAULT_ENGINE_URL = '/api/engine/';

export interface ServerPickerOptions {
  onLoad: (source: ModelSource) => void;
  /** What a relative URL is resolved against. Default: the page's address. */
  baseUrl?: string;
  /** What "Test connection" asks. Default: the remote backend's probe (GET /v1/models). */
  probe?: (url: string, model: string | undefined) => Promise<ServerInfo>;
}

export class ServerPicker {
  readonly el: HTMLDetailsElement;
  private readonly url: HTMLInputElement;
  private readonly model: HTMLInputElement;
  private readonly status: HTMLElement;
  private probes = 0;

  constructor(private readonly o: ServerPickerOptions) {
    const urlId = uid('engine-url');
    const modelId = uid('engine-model');
    this.url = h('input', { id: urlId, class: 'engine-url', type: 'text', inputmode: 'url', value: DEFAULT_ENGINE_URL, spellcheck: 'false', autocomplete: 'off' });
    this.model = h('input', { id: modelId, class: 'engine-model', type: 'text', placeholder: 'optional: vLLM needs it', spellcheck: 'false', autocomplete: 'off' });
    this.status = h('div', { class: 'server-status', role: 'status' });
    this.el = h(
      'details',
      { class: 'server-picker' },
      h('summary', {}, 'A server…'),
      h('p', { class: 'hint' }, 'Run the model on an engine server (vLLM or llama-server) instead of in this browser. This site’s /api/engine/ forwards to the server its host configured, with the key from the host’s environment: no key is ever entered here.'),
      h('label', { for: urlId }, 'Server URL'),
      this.url,
      h('label', { for: modelId }, 'Model name'),
      this.model,
      h(
        'div',
        { class: 'row' },
        h('button', { type: 'button', class: 'secondary test-connection', onclick: () => void this.test() }, 'Test connection'),
        h('button', { type: 'button', class: 'primary load-server', onclick: () => this.load() }, 'Load'),
      ),
      this.status,
    );
  }

  /** The source the form names, or null (with the reason shown) when the URL is not usable. */
  private source(): ModelSource | null {
    let url: string;
    try {
      url = checkServerUrl(new URL(this.url.value.trim() || DEFAULT_ENGINE_URL, this.o.baseUrl ?? location.href).href);
    } catch (e) {
      const message = e instanceof TypeError ? `${JSON.stringify(this.url.value)} is not a URL` : e instanceof Error ? e.message : String(e);
      replace(this.status, h('p', { class: 'server-error', role: 'alert' }, message));
      return null;
    }
    const model = this.model.value.trim();
    return { kind: 'server', url, ...(model ? { model } : {}) };
  }

  private async test(): Promise<void> {
    const source = this.source();
    if (!source || source.kind !== 'server') return;
    const probe = ++this.probes;
    replace(this.status, `Asking ${source.url}…`);
    try {
      const ask = this.o.probe ?? ((url: string, model: string | undefined) => probeServer({ url, ...(model ? { model } : {}) }));
      const info = await ask(source.url, source.model);
      if (probe !== this.probes) return;
      const serves = info.models.length > 0 ? `serves ${info.models.map((m) => m.split(/[\\/]/).pop()).join(', ')}` : 'names no model';
      const context = info.contextWindow === null ? 'its context is not reported' : `${info.contextWindow.toLocaleString('en-US')}-token context`;
      replace(this.status, h('span', { class: 'ok server-info', 'data-kind': info.kind }, `✓ ${info.kind} server · ${serves} · ${context}`));
    } catch (e) {
      if (probe === this.probes) replace(this.status, errorBox(e));
    }
  }

  private load(): void {
    const source = this.source();
    if (!source) return;
    this.probes++; // a pending test no longer speaks for what is loading
    replace(this.status);
    this.o.onLoad(source);
  }
}
