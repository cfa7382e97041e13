/**
 * The compact shape search results take before they reach the model: the query, then per result only
 * what helps it answer and cite. Key order is fixed (it is the order the model reads).
 */
export interface SearchResultItem {
  title: string;
  url: string;
  description: string;
  /** Brave's human-readable age ("2 months ago", "March 3, 2024"); absent when the source has none. */
  age?: string;
}

export interface SearchResults {
  query: string;
  /** Present only when the results did not come from the tool's own service. */
  source?: string;
  results: SearchResultItem[];
}

/** Default number of results handed to the model: enough to cross-check, short enough for the budget. */
export const DEFAULT_MAX_RESULTS = 5;

/** A well-formed result count: a whole number, at least 1, at most 20 (Brave's ceiling). */
export function clampResultCount(n: number | undefined): number {
  if (n === undefined || !Number.isFinite(n)) return DEFAULT_MAX_RESULTS;
  return Math.min(Math.max(Math.trunc(n), 1), 20);
}
