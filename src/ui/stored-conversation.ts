/**
 * A conversation as the page stores it (IndexedDB) and exports it. Storage is read back as untrusted
 * data: `parseStoredConversation` checks every field (a valibot schema, then the tree's links) and
 * throws an Error naming the first bad one, so a damaged record is reported and left alone, never
 * half-loaded. The export is the CLI's render
 * input (README: `render FILE`, `replay FILE`): the shown branch's messages exactly as the loop
 * returned them (emitted ids, stop, parsed calls) plus the tool options and date its last run
 * rendered, so `render --ids` gives back the ids the engine saw.
 */
import * as v from 'valibot';
import type { FinishReason } from '../agent/events';
import { parseConversation } from '../format/conversation';
import type { Message } from '../format/types';
import { fields, parseFirst, pathText, plainObject } from '../parse/fields';
import { ConversationTree, ROOT, transcriptOf, type TreeData } from './conversation-tree';

export const STORED_VERSION = 1;

/** What a run rendered into its system block besides the messages. */
export interface RenderedOptions {
  builtinTools?: string[];
  tools?: object[];
  /** ISO YYYY-MM-DD, present when the run had tools (the system block then says "Today Date"). */
  date?: string;
}

export interface StoredConversation {
  version: typeof STORED_VERSION;
  id: string;
  title: string;
  /** The user named it: the title is no longer taken from the first message. */
  named: boolean;
  createdAt: number;
  updatedAt: number;
  /** The model of the last run. */
  modelId: string | null;
  tree: TreeData;
  /** Tools answered "always allow" in this conversation (the session's allow-list). */
  allowedTools: string[];
  renderOptions: RenderedOptions;
}

/** Every finish reason, once: a reason added to FinishReason must be added here. */
const FINISH_REASONS: Record<FinishReason, true> = {
  done: true,
  max_steps: true,
  length: true,
  aborted: true,
  time_budget: true,
  no_progress: true,
  repetition: true,
  unreadable_call: true,
  app_failure: true,
  error: true,
};

const TOOL_NAMES = 'expected an array of tool names';
const RESULT = 'expected {callId, isError, durationMs}';
const TREE = 'expected {nodes, children, selected}';
const STATS = 'expected {tokens, decodeMs, model}';

const renderOptions = fields(
  {
    builtinTools: v.optional(v.array(v.string('expected tool names'), 'expected tool names')),
    tools: v.optional(v.array(plainObject<object>('expected JSON function schemas'), 'expected JSON function schemas')),
    date: v.optional(v.pipe(v.string('expected YYYY-MM-DD'), v.regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD'))),
  },
  'expected an object',
);

const FAILURE = 'expected {kind, message}';
const callFailure = fields({ kind: v.picklist(['unreadable_call', 'app_failure', 'not_run'], FAILURE), message: v.string(FAILURE) }, FAILURE);

const toolResult = v.pipe(
  fields({ callId: v.string(RESULT), isError: v.boolean(RESULT), durationMs: v.number(RESULT), source: v.optional(v.unknown()), failure: v.optional(callFailure) }, RESULT),
  v.transform(({ source, failure, ...result }) => ({ ...result, ...(typeof source === 'string' ? { source } : {}), ...(failure ? { failure } : {}) })),
);

/** The reply's messages, checked as the CLI checks its FILE (parsed calls included). */
const reply = v.pipe(
  v.array(v.unknown(), 'expected messages'),
  v.rawTransform<unknown[], Message[]>(({ dataset, addIssue, NEVER }) => {
    try {
      return parseConversation({ messages: dataset.value }).messages;
    } catch (e) {
      addIssue({ message: e instanceof Error ? e.message : String(e) });
      return NEVER;
    }
  }),
);

const turn = fields(
  {
    /** Matched against its key in parseTree. */
    id: v.string('does not match its key'),
    parent: v.string('expected a turn id'),
    userText: v.string('expected a string'),
    reason: v.picklist(Object.keys(FINISH_REASONS) as FinishReason[], 'expected a finish reason'),
    createdAt: v.number('expected a number'),
    stats: v.optional(fields({ tokens: v.number(STATS), decodeMs: v.number(STATS), model: v.string(STATS) }, STATS)),
    reply,
    toolResults: v.array(toolResult, 'expected an array'),
  },
  'expected a turn',
);

const tree = fields(
  {
    nodes: v.record(v.string(), turn, TREE),
    children: v.record(v.string(), v.array(v.string('expected the ids of turns whose parent it is'), 'expected the ids of turns whose parent it is'), TREE),
    selected: v.record(v.string(), v.string('expected one of its children'), TREE),
  },
  TREE,
);

const storedConversation = fields(
  {
    version: v.literal(STORED_VERSION, (issue) => `expected ${STORED_VERSION} (got ${JSON.stringify(issue.input)})`),
    id: v.string('expected a string'),
    title: v.string('expected a string'),
    named: v.boolean('expected true or false'),
    createdAt: v.pipe(v.number('expected a number'), v.finite('expected a number')),
    updatedAt: v.pipe(v.number('expected a number'), v.finite('expected a number')),
    modelId: v.nullable(v.string('expected a model id or null')),
    tree,
    allowedTools: v.array(v.string(TOOL_NAMES), TOOL_NAMES),
    renderOptions,
  },
  'expected an object',
);

/** Reads a stored record; throws an Error naming the first field that is not as written. */
export function parseStoredConversation(value: unknown): StoredConversation {
  const bad = (path: string, what: string): never => {
    throw new Error(`stored conversation ${path}: ${what}`);
  };
  const parsed = parseFirst(storedConversation, value);
  if (!parsed.ok) return bad(pathText('$', parsed.issue.path), parsed.issue.message);
  return { ...parsed.value, tree: checkTree(parsed.value.tree, bad) };
}

/** The tree's links: every turn listed once by its parent, each selection one of its parent's children. */
function checkTree(t: TreeData, bad: (path: string, what: string) => never): TreeData {
  for (const [id, node] of Object.entries(t.nodes)) {
    if (node.id !== id) bad(`$.tree.nodes.${id}.id`, 'does not match its key');
  }
  const listed = new Set<string>();
  for (const [parent, kids] of Object.entries(t.children)) {
    if (parent !== ROOT && !t.nodes[parent]) bad(`$.tree.children.${parent}`, 'children of a turn that does not exist');
    if (!kids.every((k) => t.nodes[k]?.parent === parent)) bad(`$.tree.children.${parent}`, 'expected the ids of turns whose parent it is');
    for (const k of kids) listed.add(k);
  }
  const orphan = Object.keys(t.nodes).find((id) => !listed.has(id));
  if (orphan !== undefined) bad(`$.tree.nodes.${orphan}`, 'a turn no parent lists');
  for (const [parent, id] of Object.entries(t.selected)) {
    if (!t.children[parent]?.includes(id)) bad(`$.tree.selected.${parent}`, 'expected one of its children');
  }
  return t;
}

/**
 * The CLI's render input for the shown branch, with no generation prompt: `render` prints exactly what
 * the engine held after the last step (title and model ride along; render and replay ignore them).
 */
export function exportConversation(c: StoredConversation): object {
  const messages = transcriptOf(ConversationTree.from(c.tree).activePath());
  return { title: c.title, model: c.modelId, ...c.renderOptions, addGenerationPrompt: false, messages };
}

/** A file name for the export: the title, made safe. */
export function exportFileName(c: StoredConversation): string {
  const slug = c.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48) || 'conversation';
  return `${slug}.json`;
}
