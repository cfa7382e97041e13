import { transferHandlers } from 'comlink';
import { deserializeError, serializeError } from './errors';

/**
 * Makes comlink carry thrown errors as {name, code, message} and rebuild them as EngineError /
 * AbortError on the other side (comlink's default keeps only message, name and stack).
 * Installed by both the worker and the client.
 */
export function installErrorTransfer(): void {
  const builtin = transferHandlers.get('throw');
  if (!builtin) throw new Error('comlink has no "throw" transfer handler to replace');
  transferHandlers.set('throw', {
    canHandle: builtin.canHandle,
    serialize: ({ value }: { value: unknown }) => [serializeError(value), []],
    deserialize: (serialized: unknown) => {
      throw deserializeError(serialized as Parameters<typeof deserializeError>[0]);
    },
  } as typeof builtin);
}
