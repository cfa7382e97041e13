/**
 * Loading a model into the engine worker, as state the views can show: which model, loading with
 * progress, loaded (on which device) or failed (with the error and, when the page could tell, why).
 * One load at a time: starting a new one aborts the previous. A load that fails leaves the model that
 * was running (the engine keeps it): the failed state names it. Before a download that needs the user's
 * consent (download-plan.ts), `ask` is consulted; a refusal changes nothing.
 */
import type { EngineClient } from '../engine/client';
import type { LoadedModelInfo, LoadProgress, ModelRef, OnnxDevice } from '../engine/contract';
import type { LoadDiagnosis } from './load-diagnosis';

export type LoadState =
  | { kind: 'idle' }
  | { kind: 'loading'; modelId: string; progress: LoadProgress | null }
  | { kind: 'loaded'; info: LoadedModelInfo }
  /** `kept`: the model that was running before and still is (the engine keeps it when a load fails), or null. */
  | { kind: 'failed'; modelId: string; error: unknown; diagnosis: LoadDiagnosis | null; kept: LoadedModelInfo | null };

export interface ModelLoaderOptions {
  /** Resolves true to go ahead (a big download asks the user); absent: always. */
  ask?: (modelId: string) => Promise<boolean>;
  /** Explains a failure (probing the model's hosts); absent: the error's own words. */
  diagnose?: (modelId: string, error: unknown) => Promise<LoadDiagnosis>;
}

export class ModelLoader {
  private current: LoadState = { kind: 'idle' };
  private controller: AbortController | null = null;
  private readonly listeners = new Set<(s: LoadState) => void>();

  constructor(
    private readonly engine: EngineClient,
    private readonly o: ModelLoaderOptions = {},
  ) {}

  get state(): LoadState {
    return this.current;
  }

  /** The model that answers now, as the engine client holds it: the loaded one, or the one kept after a failed load. */
  get info(): LoadedModelInfo | null {
    return this.current.kind === 'loaded' || (this.current.kind === 'failed' && this.current.kept) ? this.engine.model : null;
  }

  on(listener: (s: LoadState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Loads a models.json model or a server the user named; resolves with the info, or null when it was
   * declined, failed or superseded. The states name a server by its model (or URL). Only a models.json
   * model can need a download, so only it is put to `ask`.
   */
  async load(model: ModelRef, device: OnnxDevice = 'auto'): Promise<LoadedModelInfo | null> {
    const modelId = typeof model === 'string' ? model : model.kind === 'server' ? (model.model ?? model.url) : model.path;
    if (typeof model === 'string' && this.o.ask && !(await this.o.ask(model))) return null;
    this.controller?.abort();
    const controller = new AbortController();
    this.controller = controller;
    this.set({ kind: 'loading', modelId, progress: null });
    try {
      const info = await this.engine.load(model, {
        device,
        signal: controller.signal,
        onProgress: (progress) => {
          if (this.controller === controller) this.set({ kind: 'loading', modelId, progress });
        },
      });
      if (this.controller !== controller) return null;
      this.set({ kind: 'loaded', info });
      return info;
    } catch (error) {
      if (this.controller !== controller) return null;
      const diagnosis = this.o.diagnose ? await this.o.diagnose(modelId, error).catch(() => null) : null;
      if (this.controller === controller) this.set({ kind: 'failed', modelId, error, diagnosis, kept: this.engine.model });
      return null;
    } finally {
      if (this.controller === controller) this.controller = null;
    }
  }

  cancel(): void {
    this.controller?.abort();
  }

  private set(s: LoadState): void {
    this.current = s;
    for (const l of this.listeners) l(s);
  }
}
