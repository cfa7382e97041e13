/** Cached models: what the browser keeps (size, files), a Delete per model, and the storage estimate. */
import type { ModelEntry } from '../../engine/model-list';
import { h, replace } from '../dom';
import { formatBytes } from '../format-units';
import { deleteCachedModel, listCachedModels, type CachedModel } from '../model-cache';
import type { Question } from './question-dialog';

export class CachePanel {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private readonly usage: HTMLElement;

  constructor(
    private readonly models: readonly ModelEntry[],
    private readonly modelsBaseUrl: string,
    private readonly onChange: (cached: CachedModel[]) => void,
    private readonly ask: (q: Question) => Promise<boolean>,
  ) {
    this.list = h('ul', { class: 'cache-list' });
    this.usage = h('p', { class: 'hint' });
    this.el = h(
      'section',
      { class: 'panel cache-panel', 'aria-label': 'Cached models' },
      h('h2', {}, 'Cached models'),
      this.list,
      this.usage,
      h('button', { type: 'button', class: 'secondary small', onclick: () => void this.refresh() }, 'Refresh'),
    );
  }

  async refresh(): Promise<void> {
    const cached = await listCachedModels(this.models, this.modelsBaseUrl).catch(() => []);
    replace(
      this.list,
      ...(cached.length === 0
        ? [h('li', { class: 'hint' }, 'Nothing cached yet. Downloaded models stay in this browser until you delete them here.')]
        : cached.map((c) =>
            h(
              'li',
              { 'data-key': c.key },
              h('span', { class: 'cache-name' }, c.labels.join(' / ')),
              h('span', { class: 'cache-size' }, `${formatBytes(c.bytes)} · ${c.files} files`),
              h('button', { type: 'button', class: 'danger small', onclick: () => void this.remove(c) }, 'Delete'),
            ),
          )),
    );
    const estimate = await navigator.storage?.estimate?.().catch(() => null);
    this.usage.textContent = estimate?.usage !== undefined && estimate.quota ? `This site uses ${formatBytes(estimate.usage)} of ${formatBytes(estimate.quota)} available.` : '';
    this.onChange(cached);
  }

  private async remove(c: CachedModel): Promise<void> {
    const yes = await this.ask({
      title: `Delete ${c.labels.join(' / ')}?`,
      lines: [`${formatBytes(c.bytes)} in ${c.files} files leave this browser's storage.`, 'It will be downloaded again on next use.'],
      strong: true,
      confirmLabel: 'Delete',
    });
    if (!yes) return;
    await deleteCachedModel(this.models, this.modelsBaseUrl, c.key);
    await this.refresh();
  }
}
