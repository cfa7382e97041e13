/**
 * The widget's entry (the widget build's `llama-chat.js`, served from its own origin): defines
 * `<llama-chat>` once, its engine worker loaded from the widget's origin (engine-start.ts), and exports
 * the types a host needs to register tools.
 */
import type { EngineClient } from '../engine/client';
import type { EngineConfig } from '../engine/contract';
import { startEngine } from './engine-start';
import { LlamaChatElement } from './llama-chat-element';

/** `<llama-chat>` as the widget build defines it: the engine worker comes from the widget's own origin. */
export class LlamaChatWidget extends LlamaChatElement {
  protected override startEngine(config: EngineConfig): EngineClient {
    return startEngine(config);
  }
}

export { LlamaChatElement };
export type { CustomToolSpec } from '../tools/custom-tool';
export type { AgentEvent } from '../agent/events';
export type { HostCsp } from './host-csp';

if (!customElements.get('llama-chat')) customElements.define('llama-chat', LlamaChatWidget);
