/**
 * A failed load explained, in the browser: when the failure looks like the network's (or the browser
 * is offline), the model's hosts are probed (host-probe.ts), then load-diagnosis.ts says what happened.
 */
import type { ModelEntry } from '../engine/model-list';
import { modelHosts } from './download-plan';
import { probeHosts } from './host-probe';
import { diagnoseLoadFailure, isNetworkFailure, type LoadDiagnosis } from './load-diagnosis';

export async function explainLoadFailure(error: unknown, model: ModelEntry | undefined, models: readonly ModelEntry[]): Promise<LoadDiagnosis> {
  const online = navigator.onLine;
  const hosts = model ? modelHosts(model) : [];
  const probed = hosts.length > 0 && (isNetworkFailure(error) || !online) ? await probeHosts(hosts) : {};
  return diagnoseLoadFailure({ error, model, hosts: probed, online, models });
}
