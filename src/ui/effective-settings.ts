/**
 * What will actually run for the next message: the user's settings with the loaded model's own
 * overrides applied (the micro model runs greedy whatever the temperature says) and the loop's
 * bounds as the loop computes them (the per-step cap is at most a quarter of the context). Each value
 * says where it comes from, so the settings never show one thing and run another. Pure.
 */
import { stepTokenCap, STEP_SHARE_OF_CONTEXT } from '../agent/step-cap';
import type { LoadedModelInfo, SamplingParams } from '../engine/contract';
import { samplingOf, type Settings } from './settings';

export interface EffectiveValue {
  label: string;
  value: string;
  /** Where it comes from, e.g. "your setting", "Micro Llama's own (it is trained for greedy decoding)". */
  source: string;
  /** The model or the context changed the user's value. */
  overridden: boolean;
}

const SAMPLING_LABELS: Array<[keyof SamplingParams, string]> = [
  ['temperature', 'Temperature'],
  ['topP', 'Top-p'],
  ['topK', 'Top-k'],
  ['minP', 'Min-p'],
];

export function effectiveSettings(settings: Settings, model: LoadedModelInfo | null, modelLabel: string): EffectiveValue[] {
  const mine = samplingOf(settings);
  const own = model?.sampling ?? {};
  const rows: EffectiveValue[] = SAMPLING_LABELS.map(([key, label]) => {
    const overridden = own[key] !== undefined && own[key] !== mine[key];
    const value = own[key] ?? mine[key];
    return { label, value: String(value), source: own[key] !== undefined ? `${modelLabel}'s own setting` : 'your setting', overridden };
  });
  const cap = stepTokenCap(settings.maxTokensPerStep, model?.contextWindow);
  rows.push({
    label: 'Tokens per step',
    value: String(cap),
    source:
      cap < settings.maxTokensPerStep
        ? `1/${STEP_SHARE_OF_CONTEXT} of the ${model!.contextWindow.toLocaleString('en-US')}-token context (your setting: ${settings.maxTokensPerStep})`
        : 'your setting',
    overridden: cap < settings.maxTokensPerStep,
  });
  rows.push({ label: 'Max steps', value: String(settings.maxSteps), source: 'your setting', overridden: false });
  if (model) rows.push({ label: 'Context window', value: `${model.contextWindow.toLocaleString('en-US')} tokens`, source: modelLabel, overridden: false });
  return rows;
}
