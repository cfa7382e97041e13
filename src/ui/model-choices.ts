/**
 * The model picker's content, from the capability report: every model with its verdict, grouped,
 * the one to pre-select and, when the default model will not fit, why and what to use instead.
 * Pure (models, capabilities and hints in; data out).
 *
 * Invariants: every model of the list appears exactly once; the test model is always selectable
 * and labeled as such; the pre-selected model is `recommendModel`'s choice (never the random test
 * model while anything else fits); a model that will not fit carries its reason.
 */
import type { GpuCapabilities } from '../engine/contract';
import { assessModel, isSoftwareAdapter, recommendModel, vramBudgetMB, type MachineHints, type ModelFit } from '../engine/model-fit';
import type { ModelEntry } from '../engine/model-list';
import { formatBytes } from './format-units';

export type ChoiceGroup = 'recommended' | 'fits' | 'maybe' | 'no' | 'local';

export interface ModelChoice {
  id: string;
  /** Option text: label, download size and a verdict mark. */
  text: string;
  group: ChoiceGroup;
  fit: ModelFit;
}

export interface ModelChoices {
  choices: ModelChoice[];
  defaultId: string | undefined;
  /** Lines of the capability report: WebGPU, shader-f16, memory estimate. */
  report: string[];
  /** Why the default (Llama 3.1 8B) is not pre-selected, and what is instead; empty when it is. */
  explanation: string[];
}

export const GROUP_LABELS: Record<ChoiceGroup, string> = {
  recommended: 'Recommended for this device',
  fits: 'Should run here',
  maybe: 'Might run here',
  no: 'Will not run here',
  local: 'Runs anywhere (no GPU needed)',
};

const ORDER: ChoiceGroup[] = ['recommended', 'fits', 'maybe', 'local', 'no'];

export function modelChoices(models: readonly ModelEntry[], caps: GpuCapabilities, hints: MachineHints = {}): ModelChoices {
  const fits = models.map((m) => assessModel(m, caps, hints));
  const recommended = recommendModel(fits);
  const choices = fits.map((fit): ModelChoice => {
    const m = fit.model;
    const group: ChoiceGroup =
      recommended?.model.id === m.id && !m.test ? 'recommended' : m.test || m.demo ? 'local' : fit.status === 'ok' ? 'fits' : fit.status;
    const tag = m.test ? ' — test model, emits noise' : m.demo ? ' — demo model' : '';
    const mark = fit.status === 'no' ? ' ✗' : fit.status === 'maybe' ? ' ?' : '';
    return { id: m.id, text: `${m.label}${tag} (${formatBytes(m.sizeBytes)})${mark}`, group, fit };
  });
  choices.sort((a, b) => ORDER.indexOf(a.group) - ORDER.indexOf(b.group));
  return { choices, defaultId: recommended?.model.id, report: capabilityReport(caps, hints), explanation: explain(fits, caps, recommended) };
}

function capabilityReport(caps: GpuCapabilities, hints: MachineHints): string[] {
  const a = caps.adapter;
  const gpu = a ? [a.vendor, a.architecture, a.description].filter(Boolean).join(' ') || 'unnamed adapter' : '';
  const lines = [caps.webgpu ? `WebGPU: yes (${gpu}${isSoftwareAdapter(caps) ? ', a software renderer' : ''})` : `WebGPU: no — ${caps.reason ?? 'not available'}`];
  if (caps.webgpu) lines.push(`shader-f16: ${caps.shaderF16 ? 'yes' : 'no (the q4f32 variants are used)'}`);
  lines.push(gpuMemoryLine(caps, hints));
  if (caps.wasm) {
    lines.push(
      caps.wasm.crossOriginIsolated
        ? `WASM: ${caps.wasm.threads} thread${caps.wasm.threads === 1 ? '' : 's'} (the page is cross-origin isolated)`
        : 'WASM: 1 thread (the page is not cross-origin isolated: its server does not send COOP/COEP)',
    );
  }
  return lines;
}

/**
 * The GPU-memory line, labelled as what it is: browsers never report GPU memory, so with a real
 * adapter it is an estimate from the system memory the browser admits (navigator.deviceMemory), and
 * with a software renderer or no WebGPU there is no GPU memory to speak of.
 */
export function gpuMemoryLine(caps: GpuCapabilities, hints: MachineHints): string {
  if (!caps.webgpu) return 'GPU memory: none in use (no WebGPU)';
  if (isSoftwareAdapter(caps)) return 'GPU memory: none — no GPU here; WebGPU runs on the CPU (a software renderer)';
  const budget = vramBudgetMB(caps, hints);
  if (budget === null) return 'GPU memory: unknown — browsers do not report it; models are assumed to fit';
  return `GPU memory (estimate): about ${(budget / 1024).toFixed(0)} GB — from the ${hints.deviceMemoryGB} GB of system memory the browser reports (navigator.deviceMemory), not a measurement`;
}

/** The flagship for this device: Llama 3.1 8B with the full context, f16 when the GPU has it. */
function flagship(fits: readonly ModelFit[], caps: GpuCapabilities): ModelFit | undefined {
  const eight = fits.filter((f) => f.model.family === 'llama-3.1' && f.model.backend === 'webllm' && f.model.contextWindow >= 4096);
  return eight.find((f) => f.model.requiredFeatures.includes('shader-f16') === caps.shaderF16) ?? eight[0];
}

function explain(fits: readonly ModelFit[], caps: GpuCapabilities, recommended: ModelFit | undefined): string[] {
  const top = flagship(fits, caps);
  if (!top || recommended?.model.id === top.model.id) return [];
  const lines = [`${top.model.label} will not run here: ${top.reason}.`];
  if (!recommended) lines.push('No model in the list runs on this device.');
  else if (recommended.model.test) {
    lines.push(`No real model fits this device. The ${recommended.model.label} runs anywhere, but it has random weights and answers with noise: use it to try the page.`);
  } else lines.push(`Recommended instead: ${recommended.model.label} — ${recommended.reason}.`);
  return lines;
}
