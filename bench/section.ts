/**
 * What a bench section is: a name (its key in results.json and its CLI filter) and a run that returns
 * flat figures. Keys are camelCase without the section prefix; the runner prints them as
 * `section.key`. A section throws when an invariant it checks does not hold: a wrong result must
 * fail the bench, never print a number.
 */
export type SectionResult = Record<string, number | string>;

export interface BenchSection {
  name: string;
  /** One line for the table header and `--list`. */
  summary: string;
  run(): Promise<SectionResult>;
}
