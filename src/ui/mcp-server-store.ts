/**
 * The chat page's MCP servers, kept in this browser (localStorage): each server's URL and the tools the
 * user turned off. Bearer tokens are not kept: they live in the page's memory until it closes (a
 * token in localStorage would outlive the session and be readable by any script of this origin).
 * A stored value that does not parse is read as no servers.
 */
import * as v from 'valibot';
import { safeLocalStorage } from './page-memory';

const entrySchema = v.object({ url: v.string(), disabledTools: v.array(v.string()) });
const listSchema = v.array(entrySchema);

export type StoredMcpServer = v.InferOutput<typeof entrySchema>;

export interface McpServerStore {
  load(): StoredMcpServer[];
  save(servers: readonly StoredMcpServer[]): void;
}

export function localMcpServerStore(key = 'llama-agent:mcp-servers', storage: Storage | null = safeLocalStorage()): McpServerStore {
  return {
    load() {
      try {
        const parsed = v.safeParse(listSchema, JSON.parse(storage?.getItem(key) ?? '[]'));
        return parsed.success ? parsed.output : [];
      } catch {
        return [];
      }
    },
    save(servers) {
      try {
        storage?.setItem(key, JSON.stringify(servers));
      } catch {
        // Storage full or denied: the list lasts for this page only.
      }
    },
  };
}
