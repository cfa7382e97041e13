/**
 * One generation step, shared by the agent loop and the API's chat turn: generate from the prompt
 * ids (decoded once, as they stream, into pieces split at the python tag), then read the reply once
 * from those pieces.
 *
 * Invariants: a reply that did not end with its own eom or eot (length, abort, end_of_text, a stop
 * string, an interrupt) makes no call and its text is read as a finished turn; a constraint the engine
 * cannot compile is either an error or, with `dropInvalidConstraint`, dropped and the step generated
 * again without it (`constraintDropped` says so).
 */
import type { EngineLike, GenerateRequest } from '../engine/contract';
import { EngineError } from '../engine/errors';
import { parsePieces } from '../format/parse';
import { PYTHON_TAG_TEXT } from '../format/special-tokens';
import type { TextTokenizer, ToolCall } from '../format/types';
import { generatePieces, type Emitted, type PiecesOptions } from './generate-pieces';

export interface StepOptions extends PiecesOptions {
  engine: EngineLike;
  tokenizer: TextTokenizer;
  request: GenerateRequest;
  /** Calls are read from the reply (default); false: the reply is plain text. */
  readCalls?: boolean;
  dropInvalidConstraint?: boolean;
}

export interface Step extends Emitted {
  /** The reply's text, the python tag by name (its pieces joined). */
  raw: string;
  /** The reply ended with its own eom or eot: its calls count. */
  finished: boolean;
  /** What the user should see (the parser's content). */
  content: string;
  toolCalls: ToolCall[];
  constraintDropped: boolean;
}

export async function runStep(o: StepOptions): Promise<Step> {
  let request = o.request;
  let constraintDropped = false;
  const generate = () => generatePieces(o.engine, o.tokenizer, request, o);
  const emitted = await generate().catch((e: unknown) => {
    if (!(o.dropInvalidConstraint && e instanceof EngineError && e.code === 'invalid_constraint' && request.constraint)) throw e;
    const { constraint: _dropped, ...rest } = request;
    request = rest;
    constraintDropped = true;
    return generate();
  });
  const { result, pieces } = emitted;
  const finished = (result.stop === 'eom' || result.stop === 'eot') && emitted.stoppedBy === null && !emitted.interrupted;
  const raw = pieces.join(PYTHON_TAG_TEXT);
  const parsed = o.readCalls === false ? { content: raw, toolCalls: [] } : parsePieces(pieces, finished ? (result.stop as 'eom' | 'eot') : 'eot');
  return { ...emitted, raw, finished, content: parsed.content, toolCalls: finished ? parsed.toolCalls : [], constraintDropped };
}
