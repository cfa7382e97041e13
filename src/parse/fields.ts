/**
 * Helpers over valibot for parsing data that arrives as `unknown` (JSON files, storage, messages):
 * each parser declares its shape once as a schema — the type is inferred from it — and reports the
 * first problem as a field path and a plain message.
 */
import * as v from 'valibot';

/**
 * An object schema whose missing field is reported as that field's own schema reports `undefined`
 * (valibot's plain object reports every missing key with the object's message); `notAnObject` is the
 * message for a value that is not an object at all.
 */
export function fields<const E extends v.ObjectEntries>(entries: E, notAnObject: string): v.ObjectSchema<E, (issue: v.ObjectIssue) => string> {
  return v.object(entries, missingAsField(entries, notAnObject));
}

/** The object message of `fields`, for valibot's other object schemas (looseObject keeps unknown keys). */
export function missingAsField(entries: v.ObjectEntries, notAnObject: string): (issue: v.ObjectIssue | v.LooseObjectIssue) => string {
  return (issue) => {
    const item = issue.path?.[0];
    if (item?.origin === 'key' && typeof item.key === 'string' && Object.hasOwn(entries, item.key)) {
      return v.safeParse(entries[item.key]!, undefined).issues?.[0].message ?? notAnObject;
    }
    return notAnObject;
  };
}

/** The first problem valibot found: the keys and indexes down to it, its message, and what was expected there. */
export interface FirstIssue {
  path: Array<string | number>;
  message: string;
  expected: string | null;
}

/** Parses `value` stopping at the first problem: the typed output, or that problem. */
export function parseFirst<S extends v.GenericSchema>(schema: S, value: unknown): { ok: true; value: v.InferOutput<S> } | { ok: false; issue: FirstIssue } {
  const result = v.safeParse(schema, value, { abortEarly: true });
  if (result.success) return { ok: true, value: result.output };
  const issue = result.issues[0];
  const path = (issue.path ?? []).map((item) => item.key).filter((key): key is string | number => typeof key === 'string' || typeof key === 'number');
  return { ok: false, issue: { path, message: issue.message, expected: issue.expected } };
}

/** A non-empty string; `message` for anything else. */
export const nonEmptyText = (message: string) => v.pipe(v.string(message), v.nonEmpty(message));

/** A plain object (not an array, not null), kept as it is. */
export const plainObject = <T extends object>(message: string) =>
  v.custom<T>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), message);

/** Turns a thrown check into a valibot issue with the thrown error's message. */
export const throwsNot = <T>(check: (value: T) => unknown) =>
  v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    try {
      check(dataset.value);
    } catch (e) {
      addIssue({ message: e instanceof Error ? e.message : String(e) });
    }
  });

/** A path as a reader writes it after `root`: `root.key[0].field`. */
export function pathText(root: string, path: readonly (string | number)[]): string {
  return path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : `${text}.${key}`), root);
}
