import { MODELS } from '../engine/models';
import { CliError } from './cli-error';

/** A `--model` value → a models.json id: "micro" names the offline demo model, whatever its id. */
export function resolveModelId(flag: string | undefined): string {
  if (!flag) throw new CliError('--model needs a model id');
  const id = flag === 'micro' ? MODELS.find((m) => m.demo)?.id : flag;
  if (!id) throw new CliError('no demo (micro) model in models/models.json');
  if (!MODELS.some((m) => m.id === id)) throw new CliError(`unknown model "${id}": ids are listed in models/models.json`);
  return id;
}
