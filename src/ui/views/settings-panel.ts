/**
 * Settings as a form: sampling, tools on/off and who answers search and math, max steps, tokens per step,
 * what happens when the context is full, the tool proxy, the device;
 * and above it, what will actually run for the next message (effective-settings.ts): the loaded
 * model's own overrides and the loop's bounds, each with where it comes from.
 */
import { h, replace, uid } from '../dom';
import type { EffectiveValue } from '../effective-settings';
import type { ToolProvider } from '../../tools/tool-provider';
import { CONTEXT_POLICIES, POLICY_LABELS } from '../../agent/context-policy';
import { BUILTIN_TOOL_IDS, DEFAULT_SETTINGS, parseSettings, type Settings } from '../settings';

const TOOL_LABELS: Record<string, string> = {
  code_interpreter: 'Code interpreter (Python in a sandbox, offline)',
  brave_search: 'Web search (Brave; asks before sending)',
  wolfram_alpha: 'Wolfram|Alpha (asks before sending)',
};

const PROVIDER_LABELS: Record<ToolProvider, string> = {
  auto: 'This device unless a key is set',
  service: 'Brave / Wolfram|Alpha only',
  local: 'This device only',
};

export class SettingsPanel {
  readonly el: HTMLElement;
  private readonly form: HTMLFormElement;
  private readonly effective: HTMLElement;

  constructor(initial: Settings, onChange: (s: Settings) => void) {
    const num = (key: keyof Settings, label: string, min: number, max: number, step: number) => {
      const id = uid(`set-${key}`);
      return h('div', { class: 'field' }, h('label', { for: id }, label), h('input', { id, name: key, type: 'number', min, max, step, value: String(initial[key]) }));
    };
    const deviceId = uid('set-device');
    const providerId = uid('set-provider');
    const proxyId = uid('set-proxy');
    const policyId = uid('set-context-policy');
    this.form = h(
      'form',
      { class: 'settings-form' },
      h(
        'fieldset',
        {},
        h('legend', {}, 'Tools'),
        ...BUILTIN_TOOL_IDS.map((t) =>
          h('label', { class: 'check' }, h('input', { type: 'checkbox', name: `tool:${t}`, checked: initial.tools[t] }), TOOL_LABELS[t] ?? t),
        ),
        h(
          'div',
          { class: 'field' },
          h('label', { for: providerId }, 'Search and math answered by'),
          h(
            'select',
            { id: providerId, name: 'searchAndMath' },
            ...(Object.entries(PROVIDER_LABELS) as Array<[ToolProvider, string]>).map(([p, label]) => h('option', { value: p, selected: initial.searchAndMath === p }, label)),
          ),
        ),
        h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'confirmOnDevice', checked: initial.confirmOnDevice }), 'Ask before answers made on this device too'),
      ),
      h(
        'fieldset',
        {},
        h('legend', {}, 'Sampling'),
        num('temperature', 'Temperature (0 = greedy)', 0, 2, 0.05),
        num('topP', 'Top-p', 0, 1, 0.05),
        num('topK', 'Top-k (0 = off)', 0, 1000, 1),
        num('minP', 'Min-p (0 = off)', 0, 1, 0.01),
      ),
      h(
        'fieldset',
        {},
        h('legend', {}, 'Loop'),
        num('maxSteps', 'Max steps per answer', 1, 32, 1),
        num('maxTokensPerStep', 'Max tokens per step', 16, 4096, 1),
        h(
          'div',
          { class: 'field' },
          h('label', { for: policyId }, 'When the context is full'),
          h('select', { id: policyId, name: 'contextPolicy' }, ...CONTEXT_POLICIES.map((p) => h('option', { value: p, selected: initial.contextPolicy === p }, POLICY_LABELS[p]))),
        ),
        h('div', { class: 'field' }, h('label', { for: proxyId }, 'Tool proxy endpoint'), h('input', { id: proxyId, name: 'proxyEndpoint', type: 'text', value: initial.proxyEndpoint, spellcheck: 'false' })),
        h(
          'div',
          { class: 'field' },
          h('label', { for: deviceId }, 'Device for ONNX models'),
          h(
            'select',
            { id: deviceId, name: 'device' },
            ...(['auto', 'webgpu', 'wasm'] as const).map((d) => h('option', { value: d, selected: initial.device === d }, d === 'auto' ? 'Auto (WebGPU, else WASM)' : d === 'webgpu' ? 'WebGPU' : 'WASM (CPU)')),
          ),
        ),
      ),
      h('button', { type: 'reset', class: 'secondary small' }, 'Reset to defaults'),
    );
    this.form.addEventListener('change', () => onChange(this.read()));
    this.form.addEventListener('reset', (e) => {
      e.preventDefault();
      this.write(DEFAULT_SETTINGS);
      onChange(this.read());
    });
    this.effective = h('div', { class: 'effective-settings' });
    this.el = h('section', { class: 'panel settings-panel', 'aria-label': 'Settings' }, h('h2', {}, 'Settings'), this.effective, this.form);
  }

  /** Shows what runs for the next message (`heading` names the model, or says none is loaded). */
  showEffective(heading: string, rows: readonly EffectiveValue[]): void {
    replace(
      this.effective,
      h('h3', {}, heading),
      h(
        'dl',
        { class: 'effective-list' },
        ...rows.flatMap((r) => [
          h('dt', {}, r.label),
          h('dd', { 'data-setting': r.label, 'data-overridden': String(r.overridden) }, h('strong', {}, r.value), ' ', h('span', { class: 'effective-source' }, `(${r.source})`)),
        ]),
      ),
    );
  }

  private read(): Settings {
    const f = new FormData(this.form);
    const n = (k: string) => Number(f.get(k));
    return parseSettings({
      temperature: n('temperature'),
      topP: n('topP'),
      topK: n('topK'),
      minP: n('minP'),
      maxSteps: n('maxSteps'),
      maxTokensPerStep: n('maxTokensPerStep'),
      contextPolicy: String(f.get('contextPolicy')),
      tools: Object.fromEntries(BUILTIN_TOOL_IDS.map((t) => [t, f.get(`tool:${t}`) !== null])),
      searchAndMath: String(f.get('searchAndMath')),
      confirmOnDevice: f.get('confirmOnDevice') !== null,
      proxyEndpoint: String(f.get('proxyEndpoint') ?? ''),
      device: String(f.get('device')),
    });
  }

  private write(s: Settings): void {
    for (const el of Array.from(this.form.elements) as HTMLInputElement[]) {
      if (!el.name) continue;
      if (el.name.startsWith('tool:')) el.checked = s.tools[el.name.slice(5) as keyof Settings['tools']];
      else if (el.name === 'confirmOnDevice') el.checked = s.confirmOnDevice;
      else el.value = String(s[el.name as keyof Settings]);
    }
  }
}
