/**
 * What a standard surface needs from the engine it wraps: generate (the worker client or the
 * in-process Engine), the loaded model and the page's tokenizer. The page's EngineClient has all three;
 * in Node the tokenizer is passed beside the Engine.
 */
import type { EngineLike, LoadedModelInfo, SlotUsage } from '../engine/contract';
import type { TextTokenizer } from '../format/types';
import { ApiError, unknownModel } from './api-error';
import type { ChatTurnDeps } from './chat-turn';
import type { TranscriptMemory } from './transcript-memory';

export interface ApiEngine extends EngineLike {
  readonly model?: LoadedModelInfo | null;
  readonly tokenizer?: TextTokenizer | null;
  /** The loaded model's slots, when the engine keeps several; absent: it runs one generation at a time. */
  slotUsage?(): SlotUsage | null;
}

export interface SurfaceOptions {
  /** The page's tokenizer (default: the engine's own, once a model is loaded). */
  tokenizer?: TextTokenizer;
  /** The system block's date when tools are on (default: today, at each request). */
  date?: string | Date;
  knowledgeCutoff?: string;
}

/** The loaded model and the tokenizer to serve it with; a 503 when nothing is loaded. */
export function served(engine: ApiEngine, options: SurfaceOptions): { model: LoadedModelInfo; tokenizer: TextTokenizer } {
  const model = engine.model ?? null;
  const tokenizer = options.tokenizer ?? engine.tokenizer ?? null;
  if (!model || !tokenizer) throw new ApiError(503, 'service_unavailable', 'not_loaded', 'no model is loaded: load one before sending requests');
  return { model, tokenizer };
}

/** The loaded model and a chat turn's dependencies. */
export function turnDeps(engine: ApiEngine, options: SurfaceOptions, memory: TranscriptMemory): { model: LoadedModelInfo; deps: ChatTurnDeps } {
  const { model, tokenizer } = served(engine, options);
  const deps: ChatTurnDeps = {
    engine,
    tokenizer,
    memory,
    modelSampling: model.sampling,
    contextWindow: model.contextWindow,
    ...(options.date !== undefined ? { date: options.date } : {}),
    ...(options.knowledgeCutoff !== undefined ? { knowledgeCutoff: options.knowledgeCutoff } : {}),
  };
  return { model, deps };
}

/** Requests name the model they expect; only the loaded one is served. */
export function checkModel(requested: string, model: LoadedModelInfo): void {
  if (requested !== model.modelId) throw unknownModel(requested, model.modelId);
}
