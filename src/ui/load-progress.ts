/**
 * Download/load progress as the bar shows it: bytes, percent and an ETA from the recent rate.
 * Pure: the clock is passed in. Invariants: percent is within 0..100 and never goes down while one
 * load lasts; no ETA until a rate has been measured over at least MIN_WINDOW_MS.
 */
import { formatBytes, formatDuration } from './format-units';

export interface ProgressSample {
  loadedBytes: number;
  totalBytes: number;
  text: string;
}

export interface ProgressView {
  /** 0..100, or null while the total is unknown. */
  percent: number | null;
  /** "12.0 MB of 33.0 MB · 36% · about 4 s left" */
  label: string;
}

const WINDOW_MS = 5000;
const MIN_WINDOW_MS = 300;

export class ProgressTracker {
  private samples: Array<{ t: number; bytes: number }> = [];
  private best = 0;

  update(p: ProgressSample, nowMs: number): ProgressView {
    this.samples.push({ t: nowMs, bytes: p.loadedBytes });
    while (this.samples.length > 2 && nowMs - this.samples[0]!.t > WINDOW_MS) this.samples.shift();
    const known = p.totalBytes > 0;
    const raw = known ? Math.min(100, Math.max(0, (p.loadedBytes / p.totalBytes) * 100)) : null;
    if (raw !== null) this.best = Math.max(this.best, raw);
    const percent = raw === null ? null : this.best;
    const parts = [known ? `${formatBytes(p.loadedBytes)} of ${formatBytes(p.totalBytes)}` : formatBytes(p.loadedBytes)];
    if (percent !== null) parts.push(`${Math.floor(percent)}%`);
    const eta = known ? this.eta(p.totalBytes - p.loadedBytes) : null;
    if (eta !== null && percent !== null && percent < 100) parts.push(`about ${formatDuration(eta)} left`);
    return { percent, label: parts.join(' · ') };
  }

  /** Seconds left at the rate of the last few seconds, or null when none is measurable yet. */
  private eta(remaining: number): number | null {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || !last || last.t - first.t < MIN_WINDOW_MS || last.bytes <= first.bytes) return null;
    const rate = (last.bytes - first.bytes) / ((last.t - first.t) / 1000);
    return Math.max(0, remaining) / rate;
  }
}
