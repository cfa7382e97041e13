/**
 * Failures in plain words: what happened and what to do. Keyed on the engine's stable error codes
 * (src/engine/errors.ts); anything unrecognised still gets a sentence and the original message.
 * Pure; never throws.
 */
export interface PlainError {
  /** One sentence: what went wrong. */
  title: string;
  /** What the user can do about it. */
  advice: string;
  /** The original message, for the curious (shown small). */
  detail: string;
  code: string;
}

const BY_CODE: Record<string, { title: string; advice: string }> = {
  not_loaded: { title: 'No model is loaded yet.', advice: 'Pick a model and press Load, then send your message again.' },
  unknown_model: { title: 'That model is not in this app’s model list.', advice: 'Pick another model from the list.' },
  load_failed: {
    title: 'The model could not be loaded.',
    advice: 'Check your connection (the first load downloads the weights), or pick a smaller model. Reloading the page can help.',
  },
  context_overflow: {
    title: 'The conversation no longer fits in the model’s context window.',
    advice: 'Start a new chat, pick a model with a longer context, or let Settings → “When the context is full” drop the oldest messages (the rolling window).',
  },
  invalid_request: { title: 'The request was not valid.', advice: 'Start a new chat; if it happens again, it is a bug worth reporting.' },
  webgpu_unavailable: {
    title: 'WebGPU is not available in this browser.',
    advice: 'Use a recent Chrome or Edge on a machine with a GPU, or pick the test model, which also runs without WebGPU.',
  },
  shader_f16_unsupported: {
    title: 'This GPU cannot run the 16-bit (f16) version of the model.',
    advice: 'Pick the q4f32 variant of the same model.',
  },
  insufficient_memory: {
    title: 'The GPU ran out of memory.',
    advice: 'Close other tabs that use the GPU, or pick a smaller model (Llama 3.2 3B or 1B).',
  },
  device_lost: { title: 'The GPU stopped responding (the device was lost).', advice: 'Press Load to load the model again; your conversation is kept.' },
  worker_failed: {
    title: 'The engine could not start in this page.',
    advice: 'Reload the page. If this chat is embedded in another site, that site’s Content-Security-Policy may be blocking it: its owner can check the allowed sources in the widget’s README.',
  },
  tool_mode_unsupported: {
    title: 'This model was not trained to use tools.',
    advice: 'Turn tools off in Settings, or pick a Llama 3.1 or 3.2 model.',
  },
  server_unreachable: {
    title: 'The engine server cannot be reached.',
    advice: 'Check that the server is running and its address is right; your conversation is kept, so send again once it is back.',
  },
  server_error: {
    title: 'The engine server answered with an error.',
    advice: 'The details below are the server’s own words; check its model and settings, then send again.',
  },
  aborted: { title: 'Stopped.', advice: 'Send a new message whenever you like.' },
  internal: { title: 'Something went wrong inside the engine.', advice: 'Try again; if it keeps happening, reload the page.' },
  turn_order: {
    title: 'The conversation’s turns are out of order for Llama 3.1.',
    advice: 'Every tool call needs its result before the next message. Start a new chat, or fix the imported conversation.',
  },
  ids_mismatch: {
    title: 'A stored answer’s token ids do not match its text.',
    advice: 'The conversation was changed after it was recorded: start a new chat, or re-import it without its ids.',
  },
  invalid_input: { title: 'The conversation is not in a form this app can read.', advice: 'Check the message named in the details.' },
  missing_user_turn: { title: 'Custom tools need a user message to be written into.', advice: 'Send a message first.' },
};

/** Any thrown value or serialized error ({name, code, message}) → plain words. */
export function plainError(error: unknown): PlainError {
  const e = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as { name?: unknown; code?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(error);
  const code = e.name === 'AbortError' ? 'aborted' : typeof e.code === 'string' ? e.code : e.name === 'FormatError' ? 'invalid_request' : 'internal';
  const known = BY_CODE[code] ?? BY_CODE.internal!;
  return { ...known, detail: message, code };
}
