/** The backend conformance suite on onnxruntime-web's WASM backend in Chromium (every check). */
import { conformanceSuite } from './conformance-suite';

conformanceSuite('wasm', { decode: 4 });
