/**
 * What a bench section is: a name (its key in results.json and its CLI filter) and a run that returns
 * figures: numbers, strings, or one level of named numbers (a figure split by kind). Keys are camelCase
 * without the section prefix; the runner prints them as `section.key` (`section.key.part` for a split one).
 * A section throws when an invariant it checks does not hold: a wrong result must fail the bench, never
 * print a number.
 */
export type Figure = number | string | Readonly<Record<string, number>>;
export type SectionResult = Record<string, Figure>;

export interface BenchSection {
  name: string;
  /** One line for the table header and `--list`. */
  summary: string;
  run(): Promise<SectionResult>;
}
