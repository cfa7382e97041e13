/**
 * Unforced, end to end, in Node, on our engine (ONNX, our sampler): the cases of
 * tests/support/micro-e2e.ts. The same cases with a real llama-server as the engine:
 * micro-e2e.llama-server.test.ts.
 */
import { describeMicroE2e } from '../../tests/support/micro-e2e';
import { MODELS } from '../engine/models';

const MICRO = MODELS.find((m) => m.demo)!;

describeMicroE2e('our engine (ONNX)', () => MICRO.id);
