import modelsJson from '../../models/models.json';
import { parseModelList, type ModelEntry } from './model-list';

/** models/models.json, validated when this module loads (a bad entry fails loudly, at start). */
export const MODELS: readonly ModelEntry[] = parseModelList(modelsJson);
