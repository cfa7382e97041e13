/**
 * A conversation with its alternatives: a tree of turns (one user message and what the run appended
 * after it). Editing a user message or regenerating an answer adds a sibling of that turn — a new
 * branch — and keeps the old one; each node remembers which of its children is shown, so switching
 * back to an alternative brings its whole continuation with it. Pure data, no DOM; serializable as is.
 *
 * Invariants: every node's parent is a node of the tree (or ROOT); `children` lists each node's
 * children in creation order and nothing else; `selected[x]`, when set, is one of x's children; the
 * active path starts at ROOT and follows `selected` (default: the newest child) to a leaf; the
 * transcript of a path is its turns' user messages and replies, in order, replies exactly as the loop
 * returned them (emitted ids, stop and parsed calls kept).
 */
import type { CallFailure } from '../agent/events';
import type { FinishReason } from '../agent/events';
import type { Message } from '../format/types';

/** The parent of the first turns. */
export const ROOT = '';

/** What a tool card showed for one call (the transcript keeps only the ipython turn's content). */
export interface StoredToolResult {
  /** `${step}.${index}` within the turn, as the loop numbers calls. */
  callId: string;
  isError: boolean;
  durationMs: number;
  /** Who answered, when not the tool's own service ("local math"). */
  source?: string;
  /** The call did not run (the app could not read it, or failed): what the card told the user. */
  failure?: CallFailure;
}

/** How an answer was generated: the tokens the model emitted over all its steps, their decode time, the model. */
export interface AnswerStats {
  tokens: number;
  decodeMs: number;
  model: string;
}

export interface TurnNode {
  id: string;
  parent: string;
  userText: string;
  /** The assistant and ipython messages the run appended after the user's message. */
  reply: Message[];
  reason: FinishReason;
  toolResults: StoredToolResult[];
  createdAt: number;
  /** Absent for turns stored before stats were kept. */
  stats?: AnswerStats;
}

export interface TreeData {
  nodes: Record<string, TurnNode>;
  children: Record<string, string[]>;
  selected: Record<string, string>;
}

export class ConversationTree {
  private constructor(private readonly data: TreeData) {}

  static empty(): ConversationTree {
    return new ConversationTree({ nodes: {}, children: {}, selected: {} });
  }

  /** A tree from stored data (already validated by stored-conversation.ts); the data is copied. */
  static from(data: TreeData): ConversationTree {
    return new ConversationTree(structuredClone(data));
  }

  toData(): TreeData {
    return structuredClone(this.data);
  }

  get size(): number {
    return Object.keys(this.data.nodes).length;
  }

  node(id: string): TurnNode | undefined {
    return this.data.nodes[id];
  }

  /** Adds a turn under `node.parent` and shows it (it becomes that parent's selected child). */
  add(node: TurnNode): void {
    if (node.parent !== ROOT && !this.data.nodes[node.parent]) throw new Error(`no turn "${node.parent}" to continue`);
    if (this.data.nodes[node.id]) throw new Error(`turn "${node.id}" exists already`);
    this.data.nodes[node.id] = node;
    (this.data.children[node.parent] ??= []).push(node.id);
    this.data.selected[node.parent] = node.id;
  }

  /** Shows `id` instead of its siblings (its own continuation comes with it). */
  select(id: string): void {
    const node = this.data.nodes[id];
    if (!node) throw new Error(`no turn "${id}"`);
    this.data.selected[node.parent] = id;
  }

  /** The turns shown, first to last. */
  activePath(): TurnNode[] {
    const path: TurnNode[] = [];
    let at = ROOT;
    for (;;) {
      const kids = this.data.children[at];
      if (!kids || kids.length === 0) return path;
      const next = this.data.selected[at] ?? kids[kids.length - 1]!;
      path.push(this.data.nodes[next]!);
      at = next;
    }
  }

  /** The turns from the first down to `id` (empty for ROOT). */
  pathTo(id: string): TurnNode[] {
    const path: TurnNode[] = [];
    for (let n = this.data.nodes[id]; n; n = this.data.nodes[n.parent]) path.unshift(n);
    return path;
  }

  /** `id` and its alternatives, in creation order. */
  siblings(id: string): string[] {
    const node = this.data.nodes[id];
    return node ? [...(this.data.children[node.parent] ?? [])] : [];
  }

  /** The last turn shown, or ROOT when there is none. */
  get leaf(): string {
    return this.activePath().at(-1)?.id ?? ROOT;
  }
}

/** The messages of a path: per turn its user message, then its reply. */
export function transcriptOf(path: readonly TurnNode[]): Message[] {
  return path.flatMap((n) => [{ role: 'user', content: n.userText } as Message, ...n.reply]);
}
