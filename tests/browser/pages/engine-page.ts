// Test page: starts the real engine worker and hands the client to the test (window.engine).
import { EngineClient } from '../../../src/engine/client';
import { EngineError } from '../../../src/engine/errors';

declare global {
  interface Window {
    engine: EngineClient;
    EngineError: typeof EngineError;
    ready: boolean;
  }
}

window.engine = EngineClient.start({
  modelsBaseUrl: new URL('/models/', location.href).href,
  wasmBaseUrl: new URL('/ort/', location.href).href,
});
window.EngineError = EngineError;
window.ready = true;
