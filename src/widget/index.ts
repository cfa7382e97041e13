/**
 * The widget's entry (the library build's single module): defines `<llama-chat>` once and exports
 * the types a host needs to register tools.
 */
import { LlamaChatElement } from './llama-chat-element';

export { LlamaChatElement };
export type { CustomToolSpec } from '../tools/custom-tool';
export type { AgentEvent } from '../agent/events';
export type { HostCsp } from './host-csp';

if (!customElements.get('llama-chat')) customElements.define('llama-chat', LlamaChatElement);

declare global {
  interface HTMLElementTagNameMap {
    'llama-chat': LlamaChatElement;
  }
}
