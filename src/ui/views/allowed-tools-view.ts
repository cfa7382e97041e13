/**
 * "Always allow", visible and revocable: the tools this conversation runs without asking, each with
 * a Revoke button. Mirrors the session (its `allowed` events); holds no state of its own.
 */
import type { ChatSession } from '../chat-session';
import { h, replace } from '../dom';

export class AllowedToolsView {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;

  constructor(private readonly session: ChatSession) {
    this.list = h('ul', { class: 'allowed-list' });
    this.el = h('fieldset', { class: 'allowed-tools' }, h('legend', {}, 'Allowed without asking (this chat)'), this.list);
    session.on((e) => e.type === 'allowed' && this.show(e.names));
    this.show(session.alwaysAllowed);
  }

  private show(names: string[]): void {
    replace(
      this.list,
      ...(names.length === 0
        ? [h('li', { class: 'hint' }, 'None: every tool that sends data out asks first. "Always allow" in a confirmation adds it here until New chat.')]
        : names.map((name) =>
            h(
              'li',
              { 'data-tool': name },
              h('code', {}, name),
              h('button', { type: 'button', class: 'secondary small revoke', 'aria-label': `Revoke always allow for ${name}`, onclick: () => this.session.revoke(name) }, 'Revoke'),
            ),
          )),
    );
  }
}
