/** The object without its undefined-valued keys (so `{a: undefined}` does not overwrite or fail a strict schema). */
export function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
