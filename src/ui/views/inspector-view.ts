/**
 * The raw-prompt inspector: for every generation step, the exact string the model saw (special
 * tokens highlighted, by id — a literal "<|eot_id|>" typed in content is shown as text), its token
 * count, which part came from the KV cache and which was prefilled this step, what the model
 * emitted, and the step's timings; and where the context policy dropped earlier messages before a
 * step, exactly which (role, tokens before and after, each message as the model had seen it).
 *
 * Invariant: the prompt text shown is the concatenation of the pieces decoded from the step's ids,
 * which is the step's prompt text; a step's pieces are decoded once, when it is first seen open
 * with the inspector shown — never while the inspector is closed.
 */
import type { AgentEvent } from '../../agent/events';
import { splitAtTag } from '../../format/parse';
import { PYTHON_TAG_TEXT } from '../../format/special-tokens';
import { emittedText } from '../../format/render';
import type { Message, TextTokenizer } from '../../format/types';
import type { ChatSession } from '../chat-session';
import { h, replace } from '../dom';
import { formatMs } from '../format-units';
import { promptPieces } from '../prompt-pieces';

type StepFinish = Extract<AgentEvent, { type: 'step-finish' }>;
type ContextDropped = Extract<AgentEvent, { type: 'context-dropped' }>;

export class InspectorView {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private readonly empty: HTMLElement;
  private shown = false;
  /** Per step, what renders its prompt when it is seen (nothing once rendered). */
  private readonly pending = new Set<() => void>();

  constructor(
    session: ChatSession,
    private readonly tokenizer: () => TextTokenizer | null,
  ) {
    this.empty = h('p', { class: 'empty-hint' }, 'Each generation step appears here once the model has run: the exact prompt, what was reused from the KV cache, and timings.');
    this.list = h('div', { class: 'inspector-steps' });
    this.el = h(
      'section',
      { class: 'inspector', 'aria-label': 'Raw prompt inspector' },
      h('h2', {}, 'Raw prompt inspector'),
      h(
        'ul',
        { class: 'legend', 'aria-label': 'Legend' },
        h('li', {}, h('span', { class: 'swatch tok-special' }, '<|eot_id|>'), ' a special token (one id)'),
        h('li', {}, h('span', { class: 'swatch seg-reused' }, 'reused'), ' already in the KV cache: not computed again'),
        h('li', {}, h('span', { class: 'swatch seg-prefilled' }, 'prefilled'), ' run through the model this step'),
      ),
      this.empty,
      this.list,
    );
    session.on((e) => {
      if (e.type === 'agent' && e.event.type === 'step-finish') this.add(e.turn, e.event);
      if (e.type === 'agent' && e.event.type === 'context-dropped') this.addDrop(e.turn, e.event);
      if (e.type === 'cleared') {
        this.list.replaceChildren();
        this.pending.clear();
        this.empty.hidden = false;
      }
    });
  }

  /** The inspector is shown or hidden: open steps render their prompts when it is shown. */
  setShown(shown: boolean): void {
    this.shown = shown;
    if (shown) for (const render of [...this.pending]) render();
  }

  private add(turn: number, e: StepFinish): void {
    this.empty.hidden = true;
    for (const open of this.list.querySelectorAll('details[open]')) open.removeAttribute('open');
    const s = e.stats;
    const tokPerS = s.decodeMs > 0 ? (s.decodedTokens / s.decodeMs) * 1000 : 0;
    const prompt = h('pre', { class: 'prompt-text', 'data-tokens': s.promptTokens });
    const body = h(
      'div',
      { class: 'step-body' },
      h(
        'dl',
        { class: 'step-stats' },
        ...stat('prompt', `${s.promptTokens} tokens`, 'prompt-tokens'),
        ...stat('reused', tokens(s.reusedTokens), 'reused-tokens'),
        ...stat('prefilled', tokens(s.prefilledTokens), 'prefilled-tokens'),
        ...stat('prefill', formatMs(s.prefillMs), 'prefill-ms'),
        ...stat('decode', `${s.decodedTokens} tokens · ${tokPerS.toFixed(1)} tok/s`, 'decode'),
      ),
      h('div', { class: 'tool-label' }, 'Prompt, exactly as the model saw it'),
      prompt,
      h('div', { class: 'tool-label' }, `Output (stopped by ${e.stop})`),
      h('pre', { class: 'output-text', tabindex: 0 }, ...this.highlightTag(e.ids, e.raw), h('span', { class: 'tok-special' }, stopName(e.stop))),
      h('button', { type: 'button', class: 'secondary small', onclick: () => void navigator.clipboard?.writeText(e.prompt.text) }, 'Copy prompt'),
    );
    const details = h(
      'details',
      { class: 'inspector-step', open: true, 'data-turn': turn, 'data-step': e.step },
      h('summary', {}, `Turn ${turn} · step ${e.step + 1} — ${s.promptTokens} tokens (${tokens(s.reusedTokens, '')} reused, ${tokens(s.prefilledTokens, '')} prefilled) · ${tokPerS.toFixed(1)} tok/s`),
      body,
    );
    const render = () => {
      if (!this.shown || !details.open) return;
      const tokenizer = this.tokenizer();
      if (!tokenizer) return;
      this.pending.delete(render);
      details.removeEventListener('toggle', render);
      const pieces = promptPieces(e.prompt.ids, s.reusedTokens ?? 0, (ids) => tokenizer.decode(ids));
      replace(prompt, ...pieces.map((p) => h('span', { class: `${p.kind === 'special' ? 'tok-special' : 'tok-text'} ${p.reused ? 'seg-reused' : 'seg-prefilled'}` }, p.text)));
      prompt.dataset.rendered = 'true';
    };
    details.addEventListener('toggle', render);
    this.pending.add(render);
    this.list.append(details);
    render();
  }

  private addDrop(turn: number, e: ContextDropped): void {
    this.empty.hidden = true;
    const tokenizer = this.tokenizer();
    const n = e.messages.length;
    const text = (m: Message) => (m.role === 'assistant' && tokenizer ? emittedText(m, tokenizer) : undefined) ?? (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
    this.list.append(
      h(
        'details',
        { class: 'inspector-step inspector-drop', 'data-turn': turn, 'data-step': e.step, 'data-dropped': n },
        h('summary', {}, `Turn ${turn} · before step ${e.step + 1} — ${n} earlier ${n === 1 ? 'message' : 'messages'} left the context (${e.tokensBefore} → ${e.tokensAfter} tokens)`),
        h(
          'ol',
          { class: 'dropped-messages', start: e.dropped.to - n + 1 },
          ...e.messages.map((m) => h('li', { class: 'dropped-message', 'data-role': m.role }, h('strong', {}, m.role), h('pre', { tabindex: 0 }, text(m)))),
        ),
      ),
    );
  }

  /** The output with the python tag highlighted where the model emitted its id (its characters as text stay text). */
  private highlightTag(ids: readonly number[], raw: string): Array<string | HTMLElement> {
    const tokenizer = this.tokenizer();
    if (!tokenizer) return [raw];
    const out: Array<string | HTMLElement> = [];
    splitAtTag(ids).forEach((piece, i) => {
      if (i > 0) out.push(h('span', { class: 'tok-special' }, PYTHON_TAG_TEXT));
      if (piece.length > 0) out.push(tokenizer.decode(piece));
    });
    return out;
  }
}

function stat(label: string, value: string, key: string): HTMLElement[] {
  return [h('dt', {}, label), h('dd', { 'data-stat': key }, value)];
}

function stopName(stop: string): string {
  return stop === 'eom' ? '<|eom_id|>' : stop === 'eot' ? '<|eot_id|>' : stop === 'end_of_text' ? '<|end_of_text|>' : ` [${stop}]`;
}

/** A count of tokens, or "unknown" where a far-side engine did not report it. */
function tokens(n: number | null, unit = ' tokens'): string {
  return n === null ? 'unknown' : `${n}${unit}`;
}
