/**
 * Settings → "MCP servers": add a server by URL (a bearer token optional, kept in memory only), see
 * each server's state and tools, turn each tool on or off, remove a server. The list and the tools
 * turned off are kept in this browser (mcp-server-store.ts); the servers are connected again on the
 * next visit.
 */
import type { McpConnection } from '../../tools/mcp/mcp-connection';
import { h, replace } from '../dom';
import type { ExternalTools } from '../external-tools';
import type { McpServerStore, StoredMcpServer } from '../mcp-server-store';

export class McpServersView {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private readonly status: HTMLElement;
  private stored: StoredMcpServer[];

  constructor(
    private readonly external: ExternalTools,
    private readonly store: McpServerStore,
  ) {
    this.stored = store.load();
    const url = h('input', { type: 'url', name: 'mcp-url', placeholder: 'https://example.com/mcp', 'aria-label': 'MCP server URL' });
    const token = h('input', { type: 'password', name: 'mcp-token', autocomplete: 'off', placeholder: 'Bearer token (optional)', 'aria-label': 'Bearer token (optional, not stored)' });
    const add = h('button', { type: 'submit', class: 'mcp-add' }, 'Add server');
    const form = h('form', { class: 'mcp-add-form' }, url, token, add);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.add(url.value.trim(), token.value).then((added) => added && ((url.value = ''), (token.value = '')));
    });
    this.list = h('ul', { class: 'mcp-server-list' });
    this.status = h('p', { class: 'hint mcp-status', role: 'status' }, 'Tools from MCP servers (Streamable HTTP). Their calls ask first unless you allow them.');
    this.el = h('fieldset', { class: 'mcp-servers' }, h('legend', {}, 'MCP servers'), form, this.list, this.status);
  }

  /** Connects the servers kept from earlier visits. */
  async restore(): Promise<void> {
    for (const s of this.stored) await this.connect(s.url).catch(() => {});
    await this.show();
  }

  /** Whether the user left `tool` of `server` on. */
  enabled(server: string, tool: string): boolean {
    return !this.stored.find((s) => s.url === server)?.disabledTools.includes(tool);
  }

  private async add(url: string, bearerToken: string): Promise<boolean> {
    try {
      const connection = await this.connect(url, bearerToken || undefined);
      const label = connection.spec.label;
      if (!this.stored.some((s) => s.url === label)) this.stored.push({ url: label, disabledTools: [] });
      this.store.save(this.stored);
      this.status.textContent = connection.lastError ? `Added ${label}, but it did not connect: ${connection.lastError}` : `Added ${label}.`;
      await this.show();
      return true;
    } catch (e) {
      this.status.textContent = e instanceof Error ? e.message : String(e);
      return false;
    }
  }

  private connect(url: string, bearerToken?: string): Promise<McpConnection> {
    return this.external.addHttpServer(url, bearerToken ? { bearerToken } : {});
  }

  private async remove(connection: McpConnection): Promise<void> {
    await this.external.mcp.remove(connection);
    this.stored = this.stored.filter((s) => s.url !== connection.spec.label);
    this.store.save(this.stored);
    this.status.textContent = `Removed ${connection.spec.label}.`;
    await this.show();
  }

  private toggle(server: string, tool: string, on: boolean): void {
    const entry = this.stored.find((s) => s.url === server);
    if (!entry) return;
    entry.disabledTools = on ? entry.disabledTools.filter((t) => t !== tool) : [...new Set([...entry.disabledTools, tool])];
    this.store.save(this.stored);
  }

  private async show(): Promise<void> {
    const { tools, refused } = await this.external.mcp.tools();
    replace(
      this.list,
      ...this.external.mcp.all.map((c) => {
        const label = c.spec.label;
        const own = tools.filter((t) => c.owns(t));
        return h(
          'li',
          { class: 'mcp-server', 'data-server': label, 'data-state': c.state },
          h('div', { class: 'mcp-server-head' }, h('code', {}, label), h('span', { class: 'mcp-state' }, c.lastError ? `${c.state}: ${c.lastError}` : c.state)),
          h(
            'ul',
            { class: 'mcp-tools' },
            ...own.map((t) =>
              h('li', {}, h('label', {}, h('input', { type: 'checkbox', 'data-tool': t.name, checked: this.enabled(label, t.name), onchange: (e: Event) => this.toggle(label, t.name, (e.target as HTMLInputElement).checked) }), ' ', h('code', {}, t.name))),
            ),
            ...refused.filter((r) => r.server === label).map((r) => h('li', { class: 'hint' }, `${r.name}: not offered (${r.reason})`)),
          ),
          h('button', { type: 'button', class: 'secondary small mcp-remove', 'aria-label': `Remove ${label}`, onclick: () => void this.remove(c) }, 'Remove'),
        );
      }),
    );
  }
}
