/**
 * The conversation as the model sees it, grown one message at a time: each message is rendered to
 * ids once, when it is appended (shared/FORMAT.md: every turn is header ids + content ids + its
 * terminator, independent of the others), and an emitted step is appended as the ids the engine
 * returned, never re-encoded. The next prompt is these ids plus the assistant header.
 *
 * Invariants: `ids` equals renderIds() of the same options and messages without a generation
 * prompt, and `prompt()` equals renderIds() with one; turn order is checked per appended message
 * (the whole conversation is never checked or rendered again) except by `rerender`, which writes the
 * same messages under new system options (a tool list that changed mid-run); the system block and its
 * date are the options given at creation or to the last `rerender`.
 */
import { TurnOrder, normalizeRole } from './conversation';
import { FormatError } from './errors';
import { checkEmitted, headerSegments, segmentsToIds, turnBodySegments, withCustomTools, writtenMessages } from './render';
import { BEGIN_OF_TEXT, EOM, EOT } from './special-tokens';
import { hasSystemOptions } from './system-block';
import type { EmittedMessage, Message, RenderOptions, Role, TextTokenizer } from './types';

export type SystemOptions = Omit<RenderOptions, 'addGenerationPrompt'>;

export class Transcript {
  private readonly all: number[] = [BEGIN_OF_TEXT];
  private readonly given: Message[] = [];
  /** Per given message, the length of `all` after it. */
  private readonly ends: number[] = [];
  private readonly order = new TurnOrder();
  private readonly headers = new Map<Role, number[]>();
  /** Custom tools still to be written into the first user turn. */
  private toolsPending: readonly object[] = [];
  /** The length after `<|begin_of_text|>` and the system block built from the options. */
  private prefixEnd = 1;

  /** The options and messages, rendered once; throws FormatError for a bad turn order or tool placement. */
  constructor(
    private readonly tokenizer: TextTokenizer,
    readonly options: SystemOptions,
    messages: readonly Message[] = [],
  ) {
    const written = writtenMessages({ ...options, messages: [...messages] }, messages.length === 0);
    const hasSystemBlock = hasSystemOptions(options);
    if (hasSystemBlock) {
      this.write(written.shift()!);
      if (messages.length === 0) this.toolsPending = options.tools ?? [];
    }
    this.prefixEnd = this.all.length;
    const systemMerged = hasSystemBlock && messages[0] !== undefined && normalizeRole(messages[0].role) === 'system';
    messages.forEach((message, i) => {
      this.order.push(message);
      if (!(systemMerged && i === 0)) this.write(written.shift()!);
      this.given.push(message);
      this.ends.push(this.all.length);
    });
  }

  /** The transcript's ids (no generation prompt): what the context holds after the last message. */
  get ids(): readonly number[] {
    return this.all;
  }

  get length(): number {
    return this.all.length;
  }

  /** The messages as given (without the system block built from the options). */
  get messages(): Message[] {
    return [...this.given];
  }

  /** `<|begin_of_text|>` and the system block: the tokens before the first message. */
  get fixedTokens(): number {
    return this.prefixEnd;
  }

  /** Per message, the tokens it takes (a system message written inside the system block takes none). */
  messageTokens(): number[] {
    return this.ends.map((end, i) => end - (i === 0 ? this.prefixEnd : this.ends[i - 1]!));
  }

  /** The tokens `prompt()` adds after the transcript (the assistant header). */
  get promptHeaderTokens(): number {
    return this.header('assistant').length;
  }

  /**
   * A transcript of these options and the messages outside `[from, to)`, rendered as if created with
   * them (custom tools go into the first user message kept). Throws FormatError when what is left is
   * not a valid turn order.
   */
  without(from: number, to: number): Transcript {
    if (!(Number.isInteger(from) && Number.isInteger(to) && from >= 0 && from <= to && to <= this.given.length)) throw new RangeError(`no range [${from}, ${to}) of ${this.given.length} messages`);
    return new Transcript(this.tokenizer, this.options, [...this.given.slice(0, from), ...this.given.slice(to)]);
  }

  /** Appends one message (its emitted ids, when it has them, are checked against its raw text once). */
  append(message: Message): void {
    this.order.push(message);
    const role = normalizeRole(message.role);
    if (role === 'system' && hasSystemOptions(this.options)) {
      throw new FormatError('turn_order', 'a system message must be given when the transcript is created: the system block is already written');
    }
    let written: Message = { ...message, role };
    if (role === 'user' && this.toolsPending.length > 0) {
      written = withCustomTools(written, this.toolsPending);
      this.toolsPending = [];
    }
    this.write(written);
    this.given.push(message);
    this.ends.push(this.all.length);
  }

  /**
   * Appends a user or ipython turn whose text content was already encoded (a tool result counted for
   * its budget): `contentIds` must be encode(content), and are taken as they are.
   */
  appendEncoded(message: Message & { content: string }, contentIds: readonly number[]): void {
    const role = normalizeRole(message.role);
    if (role !== 'ipython' && !(role === 'user' && this.toolsPending.length === 0)) {
      throw new FormatError('invalid_input', 'only a tool result or a user turn after the custom tools can be appended as encoded ids');
    }
    this.order.push(message);
    push(this.all, this.header(role));
    push(this.all, contentIds);
    this.all.push(EOT);
    this.given.push(message);
    this.ends.push(this.all.length);
  }

  /** Appends an emitted step as the engine returned it: header, its ids, its terminator. */
  appendEmitted(message: EmittedMessage): void {
    checkEmitted(message.ids);
    this.order.push(message);
    push(this.all, this.header('assistant'));
    push(this.all, message.ids);
    this.all.push(message.stop === 'eom' ? EOM : EOT);
    this.given.push(message);
    this.ends.push(this.all.length);
  }

  /** The same messages written again under `options`, in place (the engine prefills from the first id that changed). */
  rerender(options: SystemOptions): void {
    Object.assign(this, new Transcript(this.tokenizer, options, this.given));
  }

  /** The prompt for the next step: the transcript and the assistant header (a new array). */
  prompt(): number[] {
    this.order.checkCanGenerate();
    const out = this.all.slice();
    push(out, this.header('assistant'));
    return out;
  }

  /**
   * A transcript of the first `count` messages, as if created empty and given them one by one; it
   * shares nothing mutable with this one. Throws RangeError for a count past the end, or 0 when the
   * first message is the caller's system message (written inside the system block).
   */
  slice(count: number): Transcript {
    if (!(Number.isInteger(count) && count >= 0 && count <= this.given.length)) throw new RangeError(`no prefix of ${count} messages`);
    if (count === 0 && this.ends[0] === this.prefixEnd) throw new RangeError('the first message is written inside the system block');
    const copy = new Transcript(this.tokenizer, {});
    Object.assign(copy, { options: this.options, prefixEnd: this.prefixEnd, headers: this.headers });
    copy.all.length = 0;
    push(copy.all, this.all.slice(0, count === 0 ? this.prefixEnd : this.ends[count - 1]!));
    for (const m of this.given.slice(0, count)) {
      copy.order.push(m);
      copy.given.push(m);
    }
    push(copy.ends, this.ends.slice(0, count));
    const userBefore = copy.given.some((m) => normalizeRole(m.role) === 'user');
    copy.toolsPending = userBefore ? [] : this.options.tools ?? [];
    return copy;
  }

  /** The prompt text (special tokens by name), decoded from the ids only when asked for. */
  text(ids: readonly number[] = this.all): string {
    return this.tokenizer.decode(ids);
  }

  private write(message: Message): void {
    push(this.all, this.header(normalizeRole(message.role)));
    push(this.all, segmentsToIds(turnBodySegments(message), this.tokenizer));
  }

  private header(role: Role): number[] {
    let ids = this.headers.get(role);
    if (ids === undefined) this.headers.set(role, (ids = segmentsToIds(headerSegments(role), this.tokenizer)));
    return ids;
  }
}

/** Appends without spreading: a huge message would exceed the engine's argument limit as `push(...ids)`. */
function push(into: number[], ids: readonly number[]): void {
  for (const id of ids) into.push(id);
}
