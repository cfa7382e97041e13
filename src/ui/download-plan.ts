/**
 * Whether loading a model first asks, and what the question says: any download over 100 MB that is
 * not already in the browser's cache is confirmed, with its size and how long it takes; the question
 * is stronger (a warning, the refusal focused, "anyway" on the button) when the page has said this
 * model will not run well here. Pure.
 *
 * Invariants: a model served by this site or already cached never asks; a model of 100 MB or less
 * never asks; every question names the size, the hosts it comes from and a time estimate.
 */
import type { ModelFit } from '../engine/model-fit';
import type { ModelEntry } from '../engine/model-list';
import { formatBytes, formatDuration } from './format-units';
import type { Question } from './views/question-dialog';

export const CONFIRM_ABOVE_BYTES = 100_000_000;

/** A link speed the estimate quotes when the browser says nothing (Mbit/s). */
const TYPICAL_MBPS = 50;
const FAST_MBPS = 500;

/** The hosts a model's files come from (https origins), or [] for a model served by this site. */
export function modelHosts(model: ModelEntry): string[] {
  const urls = model.backend === 'webllm' ? [model.modelUrl, model.modelLib] : model.backend === 'onnx' && model.remote ? [`https://huggingface.co/${model.path}/`] : [];
  return [...new Set(urls.map((u) => new URL(u).host))];
}

/** The question, `strong` when the page said this model will not run well here; null when nothing is asked. */
export function downloadQuestion(fit: ModelFit, cached: boolean, downlinkMbps?: number): Question | null {
  const m = fit.model;
  const hosts = modelHosts(m);
  if (hosts.length === 0 || cached || m.sizeBytes <= CONFIRM_ABOVE_BYTES) return null;
  const size = formatBytes(m.sizeBytes);
  const at = (mbps: number) => formatDuration((m.sizeBytes * 8) / (mbps * 1e6));
  const measured = downlinkMbps !== undefined && downlinkMbps > 0;
  const time = measured
    ? `About ${at(downlinkMbps)} at ${downlinkMbps} Mbit/s (this browser's estimate of your connection; browsers report at most 10 Mbit/s, so a faster link takes less), about ${at(FAST_MBPS)} at ${FAST_MBPS} Mbit/s.`
    : `About ${at(TYPICAL_MBPS)} at ${TYPICAL_MBPS} Mbit/s, about ${at(FAST_MBPS)} at ${FAST_MBPS} Mbit/s.`;
  const lines = [`${m.label} is a ${size} download from ${hosts.join(' and ')}.`, time, 'The files stay in this browser (Cached models lists and deletes them).'];
  if (fit.status === 'no') {
    return {
      title: `${m.label} will not run well here`,
      lines: [`This page checked this device: ${fit.reason}.`, ...lines, 'Downloading it is very likely wasted time and disk space.'],
      strong: true,
      confirmLabel: `Download ${size} anyway`,
    };
  }
  if (fit.status === 'maybe') lines.unshift(`It might not run here: ${fit.reason}.`);
  return { title: `Download ${size}?`, lines, strong: false, confirmLabel: `Download ${size} and load` };
}
