/**
 * A tool the agent can call. Built-ins (brave_search, wolfram_alpha), the code interpreter and the
 * host page's custom JSON tools all have this shape.
 */
export interface ToolContext {
  /** Aborts with the request, the per-tool timeout or the loop's time budget: pass it to every fetch. */
  signal: AbortSignal;
  /** Says who answered when it was not the service the tool is named after ("local math"): shown on the tool card, never to the model. */
  reportSource?: (source: string) => void;
}

/** Where one call's data goes: answered on this device, or sent to a named service at a host (null: unknown). */
export type ToolDestination = { onDevice: true } | { onDevice: false; service: string; host: string | null };

export interface Tool {
  /** The name the model calls: `brave_search`, `code_interpreter`, or a custom function name. */
  name: string;
  description: string;
  /** JSON schema of the arguments (an object schema). */
  parameters: Record<string, unknown>;
  /**
   * Runs the call. Returns a string (inserted as is) or a JSON-able value (written as JSON with
   * Python's separators). Throwing is fine: the loop turns it into an error result for the model.
   */
  execute(args: Record<string, unknown>, context: ToolContext): Promise<unknown>;
  /** Sends data out or changes something: the loop asks the user first (denial is an error result). */
  needsConfirmation?: boolean;
  /**
   * Where this call's data would go, decided before it runs: a tool that needs confirmation but
   * answers on this device is not asked about (unless the user wants every call confirmed), and the
   * question names the service and host otherwise.
   */
  destination?(signal: AbortSignal): Promise<ToolDestination>;
  /** Starts slow resources in the background (e.g. the Python sandbox); the loop calls it at start. */
  warm?(): Promise<void>;
  /**
   * The tool enforces this limit itself and reports it in its own words (the code interpreter says
   * its state was lost): the loop then waits that long plus a grace second before its own timeout.
   */
  timeoutMs?: number;
}

/** A tool failure the model should read as data (e.g. "BRAVE_API_KEY is not set: ..."). */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  constructor(
    message: string,
    /** Extra fields for the error result, e.g. {status: 401}. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}
