/**
 * Reads what the model emitted (shared/FORMAT.md "Reading the model's output") into
 * {content, toolCalls, stop}.
 *
 * Terminator: a trailing `<|eom_id|>` / `<|eot_id|>` (trailing whitespace after it tolerated) gives
 * stop `eom` / `eot` and is removed; a trailing `<|end_of_text|>` is removed with stop null; otherwise
 * stop is null. The terminator never decides whether there is a call.
 *
 * The tag is the token 128010, never its text: `parseEmitted` splits the emitted ids at it; only the
 * text form (`parseAssistantOutput`, for the CLI and stored messages without ids) reads the name.
 *
 * With `<|python_tag|>`: the text before the first tag is content (trimmed), read as nothing else.
 * The text after it (further tags act as separators) is always a call:
 *   - `NAME.call(...)` → built-in (code_interpreter → code), see builtin-calls.ts;
 *   - `{`, `[`, `<function=` → custom calls, see custom-calls.ts;
 *   - anything else → code for the interpreter (blank edge lines and common indentation removed).
 *
 * Without the tag, custom calls are recognized (outside Markdown code) as:
 *   - `<function=NAME>...</function>` anywhere; the text around them is the content;
 *   - a call block that starts at the beginning of a line and runs to the end of the text
 *     (JSON objects/arrays of calls, Python lists of calls); the text before it is the content.
 *
 * A clear attempt at a call that does not parse gives exactly one `invalid` call, {text, error},
 * and no other call; its text is not content. "Clear attempt" is decided conservatively:
 *   - after the tag: an empty body; a body opening with `NAME.call(` for a known built-in; a body
 *     opening with `<function=`, with `{` followed by a quote, with `[` followed by `{` and a quote,
 *     or with `[name(` followed by `)`, a quote or `key=`;
 *   - without the tag: a `<function=` tag outside code; or a line-start block outside fenced code
 *     that opens like a JSON call and mentions both "name" and "parameters"/"arguments" (or has
 *     "type": "function"), or opens like `[name(key=`, `[name()` or `[name("` — AND that block
 *     either opens the message or runs to its end (an example call followed by prose stays prose).
 *   Only the opening block and the last MAX_LATER_BLOCKS line-start blocks are examined, which keeps
 *   the work linear in the text.
 *   Everything else — prose mentioning JSON, braces, code blocks, valid JSON of another shape —
 *   is plain content.
 *
 * Invariants: never throws; content never contains a real python tag (prose may contain its
 * characters, as text); an `invalid` call is the only
 * call; a `code` call is named `code_interpreter`; plain content (no calls) is the text verbatim,
 * content that accompanies calls is trimmed.
 */

import { parseBuiltinCalls, startsBuiltinCall } from './builtin-calls';
import { FUNCTION_OPEN, NOT_A_CALL, functionTagItem, functionTagStarts, parseCallBlock } from './custom-calls';
import { fencedBlocks, inRanges, inlineSpans } from './markdown-code';
import { EOM_TEXT, EOT_TEXT, END_OF_TEXT, PYTHON_TAG, PYTHON_TAG_TEXT, specialTokenName } from './special-tokens';
import type { ParsedOutput, TextTokenizer, ToolCall } from './types';

const TERMINATORS: ReadonlyArray<readonly [string, ParsedOutput['stop']]> = [
  [EOM_TEXT, 'eom'],
  [EOT_TEXT, 'eot'],
  [specialTokenName(END_OF_TEXT), null],
];

const ID = String.raw`[\p{L}_][\p{L}\p{N}\p{M}_]*`;
/** `[name(` or `[a.b(` followed by `)`, a quote, or `key=`. */
const PYTHON_LIST_CALL = new RegExp(String.raw`\[\s*${ID}(?:\s*\.\s*${ID})*\s*\(\s*(?:\)|["']|${ID}\s*=(?!=))`, 'uy');
const JSON_OPEN = /\[?\s*\{\s*["']/y;
/** Line-start blocks examined after the opening one: the last ones, since a block must reach the end. */
const MAX_LATER_BLOCKS = 32;

export function invalidCall(text: string, error: string, name = ''): ToolCall {
  return { kind: 'invalid', name, arguments: { text, error } };
}

function codeCall(code: string): ToolCall {
  return { kind: 'code', name: 'code_interpreter', arguments: { code } };
}

function matchesAt(re: RegExp, text: string, i: number): boolean {
  re.lastIndex = i;
  return re.test(text);
}

/** Removes the terminator, if any, and says which it was. */
export function splitTerminator(raw: string): { text: string; stop: ParsedOutput['stop'] } {
  const trimmed = raw.trimEnd();
  for (const [token, stop] of TERMINATORS) {
    if (trimmed.endsWith(token)) return { text: trimmed.slice(0, -token.length), stop };
  }
  return { text: raw, stop: null };
}

/** Code as the interpreter should get it: blank edge lines, trailing space and common indent removed. */
export function cleanCode(body: string): string {
  const lines = body.trimEnd().split('\n');
  while (lines.length > 0 && lines[0]!.trim() === '') lines.shift();
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)![0]);
  let common = indents[0] ?? '';
  for (const indent of indents) {
    let n = 0;
    while (n < common.length && n < indent.length && common[n] === indent[n]) n++;
    common = common.slice(0, n);
  }
  return lines.map((l) => (l.startsWith(common) ? l.slice(common.length) : l.trimStart())).join('\n');
}

/** The calls after `<|python_tag|>`: never empty. */
function readTagged(body: string): ToolCall[] {
  let rest = body;
  while (rest.trimStart().startsWith(PYTHON_TAG_TEXT)) rest = rest.trimStart().slice(PYTHON_TAG_TEXT.length);
  const s = rest.trim();
  if (s === '') return [invalidCall('', 'nothing follows <|python_tag|>')];
  if (startsBuiltinCall(s)) {
    const r = parseBuiltinCalls(s);
    if (r.ok) return r.calls;
    if (r.known) return [invalidCall(s, r.error, r.name)];
    return [codeCall(cleanCode(rest))];
  }
  if (s.startsWith('{') || s.startsWith('[') || s.startsWith(FUNCTION_OPEN)) {
    const r = parseCallBlock(s, 0);
    if (r.kind === 'calls') return r.calls;
    const attempt = s.startsWith(FUNCTION_OPEN) || matchesAt(JSON_OPEN, s, 0) || matchesAt(PYTHON_LIST_CALL, s, 0);
    if (attempt) {
      return [r.kind === 'broken' ? invalidCall(s, r.error, r.name) : invalidCall(s, NOT_A_CALL)];
    }
  }
  return [codeCall(cleanCode(rest))];
}

type Reading = { content: string; toolCalls: ToolCall[] };

/** `<function=...>` tags outside Markdown code, or null when there are none. */
function readFunctionTags(text: string, code: ReturnType<typeof codeRanges>): Reading | null {
  const starts = functionTagStarts(text).filter((i) => !inRanges(code.fenced, i) && !inRanges(code.inline, i));
  if (starts.length === 0) return null;
  const calls: ToolCall[] = [];
  let content = '';
  let from = 0;
  for (const start of starts) {
    if (start < from) continue;
    const item = functionTagItem(text, start);
    content += text.slice(from, start);
    if (item.kind === 'broken') {
      const end = Math.max(item.end, start);
      const rest = text.slice(end);
      const call = invalidCall(text.slice(start, end).trim(), item.error, item.name);
      return { content: (content + rest).trim(), toolCalls: [call] };
    }
    if (item.kind !== 'calls') continue;
    calls.push(...item.calls);
    from = item.end;
  }
  content += text.slice(from);
  return { content: content.trim(), toolCalls: calls };
}

function codeRanges(text: string): { fenced: ReturnType<typeof fencedBlocks>; inline: ReturnType<typeof inlineSpans> } {
  const fenced = fencedBlocks(text);
  return { fenced, inline: inlineSpans(text, fenced) };
}

/** Line starts (after indentation) where a `{` or `[` opens, outside fenced code. */
function blockStarts(text: string, fenced: ReturnType<typeof fencedBlocks>): number[] {
  const out: number[] = [];
  for (let line = 0; line <= text.length; ) {
    let i = line;
    while (text[i] === ' ' || text[i] === '\t' || text[i] === '\r') i++;
    if ((text[i] === '{' || text[i] === '[') && !inRanges(fenced, i)) out.push(i);
    const nl = text.indexOf('\n', line);
    if (nl < 0) break;
    line = nl + 1;
  }
  return out;
}

/** Whether the block at `p` looks unmistakably like a call (see the module comment). */
function strongSignature(text: string, p: number): boolean {
  if (matchesAt(PYTHON_LIST_CALL, text, p)) return true;
  if (!matchesAt(JSON_OPEN, text, p)) return false;
  const rest = text.slice(p);
  if (/["']type["']\s*:\s*["']function["']/.test(rest)) return true;
  return /["']name["']\s*:/.test(rest) && /["'](?:parameters|arguments)["']\s*:/.test(rest);
}

/** Text with no `<|python_tag|>`. */
function readProse(text: string): Reading {
  const code = codeRanges(text);
  const tagged = readFunctionTags(text, code);
  if (tagged) return tagged;
  const starts = blockStarts(text, code.fenced);
  const first = starts[0];
  const opening = first !== undefined && text.slice(0, first).trim() === '' ? [first] : [];
  const later = starts.slice(Math.max(opening.length, starts.length - MAX_LATER_BLOCKS));
  for (const p of [...opening, ...later]) {
    const r = parseCallBlock(text, p);
    const before = text.slice(0, p).trim();
    if (r.kind === 'calls') return { content: before, toolCalls: r.calls };
    if (r.kind === 'broken' && strongSignature(text, p) && (before === '' || r.reachesEnd)) {
      return { content: before, toolCalls: [invalidCall(text.slice(p).trim(), r.error, r.name)] };
    }
  }
  return { content: text, toolCalls: [] };
}

/**
 * Reads output given as text pieces split at the real `<|python_tag|>` tokens: pieces[0] is what came
 * before the first tag; more than one piece means the model emitted the tag. `stop` is the terminator
 * that ended it (the engine says which fired). See the module comment for every rule; never throws.
 */
export function parsePieces(pieces: readonly string[], stop: ParsedOutput['stop']): ParsedOutput {
  const before = pieces[0] ?? '';
  const tagged = pieces.length > 1 ? pieces.slice(1).join(PYTHON_TAG_TEXT) : null;
  try {
    if (tagged === null) return { ...readProse(before), stop };
    return { content: before.trim(), toolCalls: readTagged(tagged), stop };
  } catch (err) {
    // Defensive only: the readers above are written not to throw (e.g. stack exhaustion on hostile input).
    const reason = err instanceof Error ? err.message : 'unknown error';
    if (tagged === null) return { content: before, toolCalls: [], stop };
    return { content: before.trim(), toolCalls: [invalidCall(tagged.trim(), `could not read the call: ${reason}`)], stop };
  }
}

/**
 * Reads what the model emitted, from its ids: only id 128010 is the python tag. The characters
 * `<|python_tag|>` emitted as ordinary tokens (the model echoing a tool result, say) stay text, so
 * prose can never become a call through them.
 */
export function parseEmitted(ids: readonly number[], stop: ParsedOutput['stop'], tokenizer: TextTokenizer): ParsedOutput {
  return parsePieces(splitAtTag(ids).map((piece) => tokenizer.decode(piece)), stop);
}

/** Emitted ids split at the python tag id (the tags themselves dropped). */
export function splitAtTag(ids: readonly number[]): number[][] {
  const pieces: number[][] = [[]];
  for (const id of ids) {
    if (id === PYTHON_TAG) pieces.push([]);
    else pieces.at(-1)!.push(id);
  }
  return pieces;
}

/**
 * Parses raw model output in its text form (the CLI's `parse`, a stored message without ids): special
 * ids written as their names, so the text `<|python_tag|>` stands for the tag; a trailing terminator
 * gives the stop. See the module comment for every rule; never throws.
 */
export function parseAssistantOutput(raw: string): ParsedOutput {
  const { text, stop } = splitTerminator(typeof raw === 'string' ? raw : String(raw ?? ''));
  return parsePieces(text.split(PYTHON_TAG_TEXT), stop);
}
