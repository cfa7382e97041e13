/**
 * node-llama-cpp is an optional peer dependency of the package (with its prebuilt binaries it is
 * ~700 MB on linux-x64, and only GGUF models in Node use it): a missing install is a load_failed error
 * that names the command adding it, not a resolver's stack trace.
 */
import { EngineError } from '../../src/engine/errors';

/** The version the llamacpp backend is written and tested against (package.json pins the same). */
export const NODE_LLAMA_CPP_VERSION = '3.22.1';

export async function importNodeLlamaCpp(load: () => Promise<typeof import('node-llama-cpp')> = () => import('node-llama-cpp')): Promise<typeof import('node-llama-cpp')> {
  try {
    return await load();
  } catch (e) {
    if (isMissingPackage(e)) {
      throw new EngineError('load_failed', `GGUF models run on node-llama-cpp, which is not installed (an optional peer dependency): npm install node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`);
    }
    throw e;
  }
}

function isMissingPackage(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  const text = e instanceof Error ? e.message : String(e);
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && text.includes('node-llama-cpp');
}
