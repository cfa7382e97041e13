/**
 * A conversation as the page stores it (IndexedDB) and exports it. Storage is read back as untrusted
 * data: `parseStoredConversation` checks every field and throws an Error naming the first bad one,
 * so a damaged record is reported and left alone, never half-loaded. The export is the CLI's render
 * input (README: `render FILE`, `replay FILE`): the shown branch's messages exactly as the loop
 * returned them (emitted ids, stop, parsed calls) plus the tool options and date its last run
 * rendered, so `render --ids` gives back the ids the engine saw.
 */
import type { FinishReason } from '../agent/events';
import { parseConversation } from '../format/conversation';
import type { Message } from '../format/types';
import { ConversationTree, ROOT, transcriptOf, type TreeData, type TurnNode } from './conversation-tree';

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

const FINISH_REASONS: Record<FinishReason, true> = {
  done: true,
  max_steps: true,
  length: true,
  aborted: true,
  time_budget: true,
  no_progress: true,
  repetition: true,
  error: true,
};
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads a stored record; throws an Error naming the first field that is not as written. */
export function parseStoredConversation(value: unknown): StoredConversation {
  const bad = (path: string, what: string): never => {
    throw new Error(`stored conversation ${path}: ${what}`);
  };
  if (!isObj(value)) bad('$', 'expected an object');
  const v = value as Obj;
  if (v.version !== STORED_VERSION) bad('$.version', `expected ${STORED_VERSION} (got ${JSON.stringify(v.version)})`);
  const str = (key: string) => (typeof v[key] === 'string' ? (v[key] as string) : bad(`$.${key}`, 'expected a string'));
  const num = (key: string) => (typeof v[key] === 'number' && Number.isFinite(v[key]) ? (v[key] as number) : bad(`$.${key}`, 'expected a number'));
  if (typeof v.named !== 'boolean') bad('$.named', 'expected true or false');
  if (v.modelId !== null && typeof v.modelId !== 'string') bad('$.modelId', 'expected a model id or null');
  if (!Array.isArray(v.allowedTools) || !v.allowedTools.every((t) => typeof t === 'string')) bad('$.allowedTools', 'expected an array of tool names');
  return {
    version: STORED_VERSION,
    id: str('id'),
    title: str('title'),
    named: v.named as boolean,
    createdAt: num('createdAt'),
    updatedAt: num('updatedAt'),
    modelId: v.modelId as string | null,
    tree: parseTree(v.tree, bad),
    allowedTools: [...(v.allowedTools as string[])],
    renderOptions: parseRenderOptions(v.renderOptions, bad),
  };
}

function parseRenderOptions(value: unknown, bad: (path: string, what: string) => never): RenderedOptions {
  if (!isObj(value)) bad('$.renderOptions', 'expected an object');
  const v = value as Obj;
  const out: RenderedOptions = {};
  if (v.builtinTools !== undefined) {
    if (!Array.isArray(v.builtinTools) || !v.builtinTools.every((t) => typeof t === 'string')) bad('$.renderOptions.builtinTools', 'expected tool names');
    out.builtinTools = [...(v.builtinTools as string[])];
  }
  if (v.tools !== undefined) {
    if (!Array.isArray(v.tools) || !v.tools.every(isObj)) bad('$.renderOptions.tools', 'expected JSON function schemas');
    out.tools = v.tools as object[];
  }
  if (v.date !== undefined) {
    if (typeof v.date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v.date)) bad('$.renderOptions.date', 'expected YYYY-MM-DD');
    out.date = v.date as string;
  }
  return out;
}

function parseTree(value: unknown, bad: (path: string, what: string) => never): TreeData {
  if (!isObj(value) || !isObj(value.nodes) || !isObj(value.children) || !isObj(value.selected)) bad('$.tree', 'expected {nodes, children, selected}');
  const t = value as { nodes: Obj; children: Obj; selected: Obj };
  const nodes: Record<string, TurnNode> = {};
  for (const [id, raw] of Object.entries(t.nodes)) nodes[id] = parseNode(id, raw, `$.tree.nodes.${id}`, bad);
  const children: Record<string, string[]> = {};
  const listed = new Set<string>();
  for (const [parent, kids] of Object.entries(t.children)) {
    if (parent !== ROOT && !nodes[parent]) bad(`$.tree.children.${parent}`, 'children of a turn that does not exist');
    if (!Array.isArray(kids) || !kids.every((k) => typeof k === 'string' && nodes[k]?.parent === parent)) {
      bad(`$.tree.children.${parent}`, 'expected the ids of turns whose parent it is');
    }
    for (const k of kids as string[]) listed.add(k);
    children[parent] = [...(kids as string[])];
  }
  const orphan = Object.keys(nodes).find((id) => !listed.has(id));
  if (orphan !== undefined) bad(`$.tree.nodes.${orphan}`, 'a turn no parent lists');
  const selected: Record<string, string> = {};
  for (const [parent, id] of Object.entries(t.selected)) {
    if (typeof id !== 'string' || !children[parent]?.includes(id)) bad(`$.tree.selected.${parent}`, 'expected one of its children');
    selected[parent] = id as string;
  }
  return { nodes, children, selected };
}

function parseNode(id: string, value: unknown, path: string, bad: (path: string, what: string) => never): TurnNode {
  if (!isObj(value)) bad(path, 'expected a turn');
  const n = value as Obj;
  if (n.id !== id) bad(`${path}.id`, 'does not match its key');
  if (typeof n.parent !== 'string') bad(`${path}.parent`, 'expected a turn id');
  if (typeof n.userText !== 'string') bad(`${path}.userText`, 'expected a string');
  if (typeof n.reason !== 'string' || !(n.reason in FINISH_REASONS)) bad(`${path}.reason`, 'expected a finish reason');
  if (typeof n.createdAt !== 'number') bad(`${path}.createdAt`, 'expected a number');
  if (!Array.isArray(n.reply)) bad(`${path}.reply`, 'expected messages');
  const reply = parseReply(n.reply as unknown[], `${path}.reply`, bad);
  if (!Array.isArray(n.toolResults)) bad(`${path}.toolResults`, 'expected an array');
  const toolResults = (n.toolResults as unknown[]).map((r, i) => {
    if (!isObj(r) || typeof r.callId !== 'string' || typeof r.isError !== 'boolean' || typeof r.durationMs !== 'number') {
      bad(`${path}.toolResults[${i}]`, 'expected {callId, isError, durationMs}');
    }
    const x = r as Obj;
    return { callId: x.callId as string, isError: x.isError as boolean, durationMs: x.durationMs as number, ...(typeof x.source === 'string' ? { source: x.source } : {}) };
  });
  return { id, parent: n.parent as string, userText: n.userText as string, reply, reason: n.reason as FinishReason, toolResults, createdAt: n.createdAt as number };
}

/** The reply's messages, checked as the CLI checks its FILE (parsed calls included). */
function parseReply(raw: unknown[], path: string, bad: (path: string, what: string) => never): Message[] {
  try {
    return parseConversation({ messages: raw }).messages;
  } catch (e) {
    return bad(path, e instanceof Error ? e.message : String(e));
  }
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
