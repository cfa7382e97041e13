/**
 * What `GET /metrics` reports, in Prometheus' text format: requests by route and status, tokens
 * (prompt, generated, and prompt ids read from the KV cache), generations waiting for the engine and
 * running, and the engine's KV-cache slots. Counted where they happen: the engine's generate calls
 * (chat and text completions alike) and the server's answers. The engine runs as many generations at
 * once as it has slots (one when it does not say; all of them when an engine server slots on its side).
 */
import type { ApiEngine } from '../../api/api-engine';
import type { GenerateRequest } from '../../engine/contract';

export class ServerMetrics {
  private readonly requests = new Map<string, number>();
  private promptTokens = 0;
  private completionTokens = 0;
  private cachedTokens = 0;
  private generations = 0;
  /** Generate calls not yet finished: those beyond the engine's slots are queued. */
  private pending = 0;
  private engine: ApiEngine | null = null;

  /** Counts one answered request. */
  request(route: string, status: number): void {
    const key = `route="${route}",status="${status}"`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
  }

  /** `engine` with its generations counted. */
  counting(engine: ApiEngine): ApiEngine {
    this.engine = engine;
    return {
      get model() {
        return engine.model;
      },
      get tokenizer() {
        return engine.tokenizer;
      },
      ...(engine.slotUsage ? { slotUsage: () => engine.slotUsage!() } : {}),
      generate: async (request: GenerateRequest, onIds, signal) => {
        this.pending++;
        try {
          const result = await engine.generate(request, onIds, signal);
          this.generations++;
          this.promptTokens += result.stats.promptTokens;
          this.completionTokens += result.stats.decodedTokens;
          this.cachedTokens += result.stats.reusedTokens ?? 0;
          return result;
        } finally {
          this.pending--;
        }
      },
    };
  }

  /** Generations waiting for the engine (not those it runs). */
  queued(): number {
    return Math.max(this.pending - this.running(), 0);
  }

  /** Generations the engine runs now. */
  private running(): number {
    return Math.min(this.pending, this.slots() ?? Infinity);
  }

  /** KV caches the engine keeps (1 when it does not say); null when an engine server keeps its own. */
  private slots(): number | null {
    const usage = this.engine?.slotUsage?.();
    return usage ? usage.slots : 1;
  }

  /** The exposition text. */
  render(): string {
    const lines: string[] = [];
    const metric = (name: string, type: 'counter' | 'gauge', help: string, samples: Array<[string, number]>) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
      for (const [labels, value] of samples) lines.push(`${name}${labels ? `{${labels}}` : ''} ${value}`);
    };
    metric('llama_agent_requests_total', 'counter', 'HTTP requests answered, by route and status.', [...this.requests]);
    metric('llama_agent_generations_total', 'counter', 'Generations the engine finished.', [['', this.generations]]);
    metric('llama_agent_prompt_tokens_total', 'counter', 'Prompt tokens of finished generations.', [['', this.promptTokens]]);
    metric('llama_agent_completion_tokens_total', 'counter', 'Tokens generated.', [['', this.completionTokens]]);
    metric('llama_agent_prompt_tokens_cached_total', 'counter', 'Prompt tokens read from the KV cache instead of prefilled.', [['', this.cachedTokens]]);
    metric('llama_agent_generations_running', 'gauge', 'Generations the engine is running (at most one per KV-cache slot).', [['', this.running()]]);
    metric('llama_agent_generations_queued', 'gauge', 'Generations waiting for a free slot.', [['', this.queued()]]);
    metric('llama_agent_kv_cache_slots', 'gauge', 'KV caches (slots) the engine keeps; 0 when an engine server behind it keeps its own.', [['', this.slots() ?? 0]]);
    return `${lines.join('\n')}\n`;
  }
}
