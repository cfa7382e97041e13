/**
 * One generation as text: the engine's id batches decoded as they stream (UTF-8 boundaries
 * respected), split into pieces at the python tag id (128010, never its text), and cut at the first
 * stop string, which also aborts the generation there.
 *
 * Invariants: `pieces` always has at least one element and never contains a real tag; a stop string
 * is looked for inside one piece (never across a tag); once it is found, or `interrupt` said stop,
 * nothing more is added; the ids are decoded here once, as they arrive; the caller's abort ends the
 * generation and resolves with what was emitted (the engine's stop is then `abort`).
 */
import type { EngineLike, GenerateRequest, GenerateResult } from '../engine/contract';
import { PYTHON_TAG } from '../format/special-tokens';
import { StreamDecoder } from '../format/tokenizer/stream-decoder';
import type { TextTokenizer } from '../format/types';

export interface Emitted {
  result: GenerateResult;
  /** The reply's text, split at the python tag (cut before the stop string, when one fired). */
  pieces: string[];
  /** The emitted ids when they are exactly the text (null when a stop string cut the reply). */
  ids: number[] | null;
  /** The stop string that ended the reply, or null. */
  stoppedBy: string | null;
  /** `interrupt` ended the generation. */
  interrupted: boolean;
}

export interface PiecesOptions {
  /** Stop strings: the reply is cut before the first one and generation stops there. */
  stops?: readonly string[];
  signal?: AbortSignal;
  /** After each batch of ids: the reply so far and the ids of the batch that counted (none past a stop string). */
  onText?: (pieces: readonly string[], ids: readonly number[]) => void;
  /** Sees each emitted id; true stops the generation there (a repetition guard). */
  interrupt?: (id: number) => boolean;
}

export async function generatePieces(engine: EngineLike, tokenizer: TextTokenizer, request: GenerateRequest, o: PiecesOptions = {}): Promise<Emitted> {
  const stops = o.stops ?? [];
  const decoder = new StreamDecoder(tokenizer);
  const pieces = [''];
  const longest = Math.max(0, ...stops.map((s) => s.length));
  const stopper = new AbortController();
  let stoppedBy: string | null = null;
  let interrupted = false;

  /** Appends text to the last piece and cuts it at a stop string that now appears. */
  const append = (text: string): void => {
    const last = pieces.length - 1;
    const from = Math.max(0, pieces[last]!.length - longest + 1);
    pieces[last] += text;
    const hit = firstStop(pieces[last]!, stops, from);
    if (!hit) return;
    pieces[last] = pieces[last]!.slice(0, hit.index);
    stoppedBy = hit.stop;
    stopper.abort();
  };
  const onIds = (ids: number[]): void => {
    let counted = 0;
    for (const id of ids) {
      if (stoppedBy !== null) break;
      counted++;
      if (id === PYTHON_TAG) {
        append(decoder.flush());
        if (stoppedBy === null) pieces.push('');
      } else {
        append(decoder.push([id]));
      }
      if (!interrupted && o.interrupt?.(id)) {
        interrupted = true;
        stopper.abort();
      }
    }
    if (counted > 0) o.onText?.(pieces, ids.slice(0, counted));
  };

  const combined = o.signal ? AbortSignal.any([o.signal, stopper.signal]) : stopper.signal;
  const result = await engine.generate({ ...request }, onIds, combined);
  if (stoppedBy === null) {
    append(decoder.flush());
    o.onText?.(pieces, []);
  }
  return { result, pieces, ids: stoppedBy === null ? result.tokens : null, stoppedBy, interrupted };
}

function firstStop(text: string, stops: readonly string[], from: number): { index: number; stop: string } | null {
  let best: { index: number; stop: string } | null = null;
  for (const stop of stops) {
    const index = text.indexOf(stop, from);
    if (index >= 0 && (!best || index < best.index)) best = { index, stop };
  }
  return best;
}
