/**
 * A disk that is full, read-only or not the hub user's is a problem of the
 * machine, not a bug in Parley: this names which one an error from the file
 * system or SQLite is, and what to do about it.
 */
export interface StorageFailure {
  /** The errno or SQLite code, e.g. ENOSPC or SQLITE_FULL. */
  code: string;
  reason: string;
  advice: string;
  /** The file the error names, when it names one (file-system errors do; SQLite's do not). */
  path?: string;
}

const KINDS: Array<{ codes: string[]; prefixes?: string[]; reason: string; advice: string }> = [
  {
    codes: ['ENOSPC', 'EDQUOT', 'SQLITE_FULL'],
    reason: 'the disk is full',
    advice: 'Free some space on that disk, or use a home on another disk (--home or PARLEY_HOME).',
  },
  {
    codes: ['EROFS'],
    prefixes: ['SQLITE_READONLY'],
    reason: 'it is read-only',
    advice: 'Make it writable, or use a home on a writable disk (--home or PARLEY_HOME).',
  },
  {
    codes: ['EACCES', 'EPERM', 'SQLITE_PERM', 'SQLITE_AUTH'],
    reason: 'permission denied',
    advice: 'Let the user running the hub read and write the home and its files, or use another home (--home or PARLEY_HOME).',
  },
  {
    codes: [],
    prefixes: ['SQLITE_CANTOPEN'],
    reason: 'a file cannot be opened',
    advice: 'Check that the home exists and that the user running the hub may read and write it, or use another home (--home or PARLEY_HOME).',
  },
  {
    codes: ['EIO', 'EFBIG'],
    prefixes: ['SQLITE_IOERR'],
    reason: 'the disk reported an input/output error',
    advice: 'Check the disk and free space; if the disk is failing, restore the home from a backup.',
  },
];

export function storageFailureOf(error: unknown): StorageFailure | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const { code, path } = error as { code?: unknown; path?: unknown };
  if (typeof code !== 'string') return undefined;
  const kind = KINDS.find((k) => k.codes.includes(code) || (k.prefixes ?? []).some((prefix) => code.startsWith(prefix)));
  if (!kind) return undefined;
  return { code, reason: kind.reason, advice: kind.advice, ...(typeof path === 'string' ? { path } : {}) };
}

/** One sentence: what could not be written, why, and what to do. */
export function describeStorageFailure(failure: StorageFailure, place: string): string {
  const at = failure.path && failure.path !== place ? `, ${failure.path}` : '';
  return `Cannot use ${place}: ${failure.reason} (${failure.code}${at}). ${failure.advice}`;
}
