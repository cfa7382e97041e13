/**
 * One generation's constraint: which ids may come next, given what was emitted so far. Opened (and
 * every grammar it may need compiled) before anything is generated; its state is the generation's
 * own, so a rollback of the KV cache, an abort or a failed step leave nothing behind.
 *
 * Invariants:
 * - While a grammar is active, an id is allowed only when XGrammar's mask allows it, and a special id
 *   only when it is that grammar's terminator (eot for a reply or a custom call, eom after the tag).
 * - For `tool_calls`, prose is never masked except for the tag (when no built-in is offered, or in
 *   `none`); a custom call can only start at the reply's start (after whitespace), as the checkpoint
 *   writes it; `required` allows nothing but a call's start.
 * - A forced id the constraint cannot follow drops the constraint for the rest of the generation.
 */
import type { Constraint, ToolCallConstraint } from '../../src/engine/contract';
import { EngineError } from '../../src/engine/errors';
import { EOM, EOT, FIRST_SPECIAL_ID, PYTHON_TAG, VOCAB_SIZE } from '../../src/format/special-tokens';
import type { GrammarCompiler } from './grammar-compiler';
import { admitsSomeString } from './grammar-emptiness';
import { customCallSchema, taggedCallGrammar } from './tool-call-grammar';
import type { Vocabulary } from './vocabulary';
import type { CompiledGrammar, GrammarMatcher, XGrammar } from './xgrammar';

export interface ConstraintSession {
  /** Readies the mask for the next pick (XGrammar's mask is computed asynchronously). */
  prepare(): Promise<void>;
  /** Sets the logits of every id the constraint forbids next to -Infinity. */
  mask(logits: Float32Array): void;
  /** Moves past the id that was picked (sampled or forced). */
  accept(id: number): void;
  /**
   * After prepare(): ids of the text the grammar now forces (all but its last token, which is left
   * to the model so that it can merge with what follows), already accepted; [] when nothing is forced.
   * At most `limit` ids. The caller feeds them without sampling and calls prepare() again.
   */
  jumpForward(limit: number): number[];
  dispose(): void;
}

const BUILTINS = new Set(['brave_search', 'wolfram_alpha', 'code_interpreter']);

/** Opens a constraint; throws EngineError `invalid_constraint` when it cannot be followed. */
export async function openConstraint(constraint: Constraint, grammars: GrammarCompiler): Promise<ConstraintSession> {
  const { xg, vocabulary } = await grammars.start();
  if (constraint.type === 'tool_calls') return openToolCalls(constraint, grammars, xg, vocabulary);
  const source =
    constraint.type === 'grammar'
      ? ({ kind: 'ebnf', grammar: constraint.grammar } as const)
      : constraint.type === 'json_object'
        ? ({ kind: 'json_schema', schema: { type: 'object' }, strict: false } as const)
        : ({ kind: 'json_schema', schema: constraint.schema, strict: true } as const);
  const compiled = await grammars.compile(source);
  const matcher = await newMatcher(xg, compiled, EOT);
  const mask = await matcher.getNextTokenBitmask();
  if (!anyAllowed(mask, EOT) || (source.kind === 'ebnf' && !admitsSomeString(compiled.grammar().toString()))) {
    matcher.dispose();
    throw new EngineError('invalid_constraint', `the ${constraint.type === 'grammar' ? 'grammar' : 'JSON schema'} admits no reply`);
  }
  return new WholeReply(matcher, vocabulary, mask);
}

async function newMatcher(xg: XGrammar, compiled: CompiledGrammar, stopId: number): Promise<GrammarMatcher> {
  return xg.GrammarMatcher.createGrammarMatcher(compiled, [stopId]);
}

function allowedBy(mask: Int32Array, id: number): boolean {
  return ((mask[id >>> 5]! >>> (id & 31)) & 1) === 1;
}

function anyAllowed(mask: Int32Array, stopId: number): boolean {
  for (let id = 0; id < FIRST_SPECIAL_ID; id++) if (allowedBy(mask, id)) return true;
  return allowedBy(mask, stopId);
}

/** The forced text's ids but the last (at most `limit`), accepted by `matcher` (up to the first it refuses). */
function forcedIds(matcher: GrammarMatcher, vocabulary: Vocabulary, limit: number): number[] {
  if (limit <= 0) return [];
  const text = matcher.findJumpForwardString();
  if (text === '') return [];
  const ids = vocabulary.spell(text).slice(0, -1).slice(0, limit);
  const accepted: number[] = [];
  for (const id of ids) {
    if (!matcher.acceptToken(id)) break;
    accepted.push(id);
  }
  return accepted;
}

/** Forbids every id the mask does not allow, and every special id but `stopId`. */
function applyMask(logits: Float32Array, mask: Int32Array, stopId: number): void {
  // A word at a time: all allowed (-1) is skipped, none allowed (0) is filled.
  for (let word = 0; word < FIRST_SPECIAL_ID >>> 5; word++) {
    const bits = mask[word]!;
    if (bits === -1) continue;
    const base = word << 5;
    if (bits === 0) logits.fill(-Infinity, base, base + 32);
    else for (let bit = 0; bit < 32; bit++) if (((bits >>> bit) & 1) === 0) logits[base + bit] = -Infinity;
  }
  for (let id = FIRST_SPECIAL_ID; id < VOCAB_SIZE; id++) if (id !== stopId || !allowedBy(mask, id)) logits[id] = -Infinity;
}

/** A reply that is one string of a grammar, then eot. */
class WholeReply implements ConstraintSession {
  private active = true;
  constructor(
    private readonly matcher: GrammarMatcher,
    private readonly vocabulary: Vocabulary,
    private bitmask: Int32Array | null,
  ) {}

  async prepare(): Promise<void> {
    if (this.active && !this.bitmask) this.bitmask = await this.matcher.getNextTokenBitmask();
  }

  mask(logits: Float32Array): void {
    if (this.active && this.bitmask) applyMask(logits, this.bitmask, EOT);
  }

  accept(id: number): void {
    if (!this.active) return;
    this.bitmask = null;
    if (!this.matcher.acceptToken(id) || id === EOT) this.active = false;
  }

  jumpForward(limit: number): number[] {
    if (!this.active) return [];
    const ids = forcedIds(this.matcher, this.vocabulary, limit);
    if (ids.length > 0) this.bitmask = null;
    return ids;
  }

  dispose(): void {
    this.matcher.dispose();
  }
}

type State = 'start' | 'prose' | 'custom' | 'tagged' | 'off';

async function openToolCalls(c: ToolCallConstraint, grammars: GrammarCompiler, xg: XGrammar, vocabulary: Vocabulary): Promise<ConstraintSession> {
  const names = c.tools.map((t) => t.name);
  const unknown = c.builtins.find((b) => !BUILTINS.has(b));
  if (unknown !== undefined) throw new EngineError('invalid_constraint', `"${unknown}" is not a built-in tool (brave_search, wolfram_alpha, code_interpreter)`);
  if (names.some((n) => typeof n !== 'string' || n === '')) throw new EngineError('invalid_constraint', 'every tool needs a name');
  const repeated = names.find((n, i) => names.indexOf(n) !== i);
  if (repeated !== undefined) throw new EngineError('invalid_constraint', `the tool name "${repeated}" is offered twice`);
  if (c.mode === 'required' && names.length + c.builtins.length === 0) throw new EngineError('invalid_constraint', 'a call is required, and no tool is offered');
  const [custom, tagged] = await Promise.all([
    names.length > 0 && c.mode !== 'none' ? grammars.compile({ kind: 'json_schema', schema: customCallSchema(c.tools), strict: true }) : null,
    c.builtins.length > 0 && c.mode !== 'none' ? grammars.compile({ kind: 'ebnf', grammar: taggedCallGrammar(c.builtins) }) : null,
  ]);
  const customMatcher = custom ? await newMatcher(xg, custom, EOT) : null;
  const customStart = customMatcher ? await customMatcher.getNextTokenBitmask() : null;
  return new ToolCalls(c.mode, xg, vocabulary, customMatcher, customStart, tagged);
}

/** Prose, then maybe one call (custom at the start, or after the tag), as a ToolCallConstraint says. */
class ToolCalls implements ConstraintSession {
  private state: State = 'start';
  private matcher: GrammarMatcher | null = null;
  private stopId = EOT;
  private pending: number[] = [];
  private bitmask: Int32Array | null = null;

  constructor(
    private readonly mode: ToolCallConstraint['mode'],
    private readonly xg: XGrammar,
    private readonly vocabulary: Vocabulary,
    private readonly customMatcher: GrammarMatcher | null,
    private readonly customStart: Int32Array | null,
    private readonly tagged: CompiledGrammar | null,
  ) {}

  async prepare(): Promise<void> {
    if (this.state !== 'custom' && this.state !== 'tagged') return;
    if (!this.matcher) {
      this.matcher = this.state === 'custom' ? this.customMatcher : await newMatcher(this.xg, this.tagged!, EOM);
      this.stopId = this.state === 'custom' ? EOT : EOM;
      for (const id of this.pending.splice(0)) this.advance(id);
      if ((this.state as State) === 'off') return;
    }
    this.bitmask ??= await this.matcher!.getNextTokenBitmask();
  }

  mask(logits: Float32Array): void {
    const { state, mode } = this;
    if (state === 'off') return;
    if (state === 'custom' || state === 'tagged') return applyMask(logits, this.bitmask!, this.stopId);
    const noTag = !this.tagged;
    if (state === 'prose') {
      if (noTag) logits[PYTHON_TAG] = -Infinity;
      if (mode === 'none') logits[EOM] = -Infinity;
      return;
    }
    if (mode === 'required') {
      for (let id = 0; id < VOCAB_SIZE; id++) {
        const call = id === PYTHON_TAG ? !noTag : id < FIRST_SPECIAL_ID && this.customStart !== null && allowedBy(this.customStart, id);
        if (!call) logits[id] = -Infinity;
      }
      return;
    }
    if (noTag) logits[PYTHON_TAG] = -Infinity;
    if (mode === 'none') logits[EOM] = -Infinity;
    const { braceStart } = this.vocabulary;
    for (let id = 0; id < FIRST_SPECIAL_ID; id++) {
      if (braceStart[id] && (mode === 'none' || (this.customStart !== null && !allowedBy(this.customStart, id)))) logits[id] = -Infinity;
    }
  }

  accept(id: number): void {
    const { state } = this;
    if (state === 'off') return;
    if (state === 'custom' || state === 'tagged') {
      if (this.matcher) this.advance(id);
      else this.pending.push(id);
      return;
    }
    if (id === PYTHON_TAG) return this.enter(this.tagged ? 'tagged' : 'off');
    if (state === 'prose') return;
    if (this.vocabulary.braceStart[id] && this.customMatcher) return this.enter('custom', id);
    if (this.mode === 'required') return this.enter('off');
    if (!this.vocabulary.whitespace[id]) this.state = 'prose';
  }

  jumpForward(limit: number): number[] {
    if ((this.state !== 'custom' && this.state !== 'tagged') || !this.matcher) return [];
    const ids = forcedIds(this.matcher, this.vocabulary, limit);
    if (ids.length > 0) this.bitmask = null;
    return ids;
  }

  dispose(): void {
    this.customMatcher?.dispose();
    if (this.matcher !== this.customMatcher) this.matcher?.dispose();
  }

  private enter(state: State, first?: number): void {
    this.state = state;
    if (first !== undefined) this.pending.push(first);
  }

  private advance(id: number): void {
    this.bitmask = null;
    if (!this.matcher!.acceptToken(id) || id === this.stopId) this.state = 'off';
  }
}
