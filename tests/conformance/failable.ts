/**
 * Wraps any backend so a test can make its next call fail (a runtime crash, a server error) without
 * touching the backend itself: the conformance suite's "failure leaves the engine consistent" check
 * runs against real backends this way. Browser-safe.
 */
import type { Backend, BackendFactory } from '../../worker/backends/backend';
import type { FailureSwitch } from '../fakes/fake-backends';

export function failable(backend: Backend): Backend & FailureSwitch {
  let failure: Error | null = null;
  const take = () => {
    const f = failure;
    failure = null;
    if (f) throw f;
  };
  const failNext = (error: Error = new Error('injected runtime failure')) => {
    failure = error;
  };
  if (backend.kind === 'logits') {
    return {
      kind: 'logits',
      get device() {
        return backend.device;
      },
      ...(backend.prefillChunk !== undefined ? { prefillChunk: backend.prefillChunk } : {}),
      step: async (ids, pick) => {
        take();
        return backend.step(ids, pick);
      },
      ...(backend.truncate ? { truncate: (n: number) => backend.truncate!(n) } : {}),
      reset: () => backend.reset(),
      dispose: () => backend.dispose(),
      failNext,
    };
  }
  return {
    kind: 'sampling',
    get device() {
      return backend.device;
    },
    generate: async (request, onIds, signal) => {
      take();
      return backend.generate(request, onIds, signal);
    },
    dispose: () => backend.dispose(),
    failNext,
  };
}

/** A backend factory whose every backend is failable; `last()` is the switch of the latest one. */
export function failableFactory(create: BackendFactory): { create: BackendFactory; last: () => FailureSwitch } {
  let latest: FailureSwitch | null = null;
  return {
    create: async (ctx) => {
      const b = failable(await create(ctx));
      latest = b;
      return b;
    },
    last: () => {
      if (!latest) throw new Error('no backend was created yet');
      return latest;
    },
  };
}
