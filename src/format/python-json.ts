/**
 * JSON as Python's `json.dumps(value, ensure_ascii=False)` writes it: separators ", " and ": ",
 * which is the spacing Llama 3.1 saw in training (shared/FORMAT.md "Pieces and ids").
 * String escaping is JSON.stringify's, which matches Python's for every code point it keeps.
 */
export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map((v) => pythonJson(v)).join(', ')}]`;
  if (typeof value === 'object') {
    const toJSON = (value as { toJSON?: () => unknown }).toJSON;
    if (typeof toJSON === 'function') return pythonJson(toJSON.call(value));
    const entries = Object.entries(value as Record<string, unknown>).filter(
      ([, v]) => v !== undefined && typeof v !== 'function',
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`).join(', ')}}`;
  }
  throw new TypeError(`cannot write ${typeof value} as JSON`);
}

/** Python's `json.dumps(value, indent=4, ensure_ascii=False)`, as Jinja's `tojson(indent=4)` writes schemas. */
export function pythonJsonIndented(value: unknown, indent = 4): string {
  return JSON.stringify(value, null, indent);
}
