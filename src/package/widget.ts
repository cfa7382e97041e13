/**
 * The package's widget entry (`llama-agent-web/widget`): importing it defines `<llama-chat>` for an app
 * that bundles the element itself. Its engine worker is then the app's own (same origin, started as
 * `startEngine` starts it); the `assets-base` attribute names the folder holding models/, ort/ and pyodide/.
 */
import { LlamaChatElement } from '../widget/llama-chat-element';

if (!customElements.get('llama-chat')) customElements.define('llama-chat', LlamaChatElement);

export { LlamaChatElement };
export type { CustomToolSpec } from '../tools/custom-tool';
export type { AgentEvent } from '../agent/events';
export type { HostCsp } from '../widget/host-csp';
export type { LocalDocument } from '../tools/local-search';
