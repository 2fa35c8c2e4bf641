import { ParleyError } from '../errors/parley-error.js';
import { shellQuote } from './command-line.js';
import { checkFolders, makeParents, readText, removeEmptyFolders, removeFile, writeText } from './files.js';
import { jsonStyleOf, NEW_FILE_STYLE, parseJsonObject, sameJson, serializeJson, type JsonObject } from './json-document.js';
import { addToJson, removeFromJson } from './json-merge.js';
import { digest, dropBackup, keepBackup, sameRecord, type FileRecord, type InstallRecord } from './ledger.js';
import type { ClientSpec, FileAdditions, InstallContext, KeepOutOfGit } from './spec.js';
import { addTomlBlock, removeTomlBlock } from './toml-block.js';
import { writeTarget, type WriteBounds } from './write-target.js';

/**
 * Install and uninstall in two steps: a plan that reads every file and
 * computes every new text first (so a broken file stops the command before
 * anything is written, and --dry-run shows the plan), then the writes.
 */
export interface FileChange {
  path: string;
  /** The text now; undefined: no such file. */
  before: string | undefined;
  /** The text to leave; undefined: no file. */
  after: string | undefined;
  additions?: FileAdditions;
  previous?: FileRecord;
  /** Uninstall: how the file gets back ("restored", "removed", "edited"). */
  how?: string;
  /** Install: whether a project install keeps it out of git. */
  keepOutOfGit?: KeepOutOfGit;
}

export interface Plan {
  record: InstallRecord;
  changes: FileChange[];
  bounds: WriteBounds;
}

/** What the user allowed for symlinks on the way to a file (--follow-symlinks). */
export interface LinkChoice {
  followSymlinks: boolean;
}

export function planInstall(spec: ClientSpec, context: InstallContext, installs: InstallRecord[], links: LinkChoice): Plan {
  const bounds: WriteBounds = { root: context.root, followSymlinks: links.followSymlinks };
  const key = { client: spec.name, scope: context.scope, root: context.root };
  const handle = context.launch.handle;
  const previous = installs.find((record) => sameRecord(record, key));
  if (previous && previous.handle.toLowerCase() !== handle.toLowerCase()) {
    throw new ParleyError('CONFLICT', `Parley is already installed for ${spec.title} here as @${previous.handle}; uninstall it first ("parley uninstall ${spec.name}${scopeWords(context)}") to install it as @${handle}. Nothing was written.`);
  }
  const changes = spec.files(context).map((file): FileChange => {
    const owner = installs.find((record) => !sameRecord(record, key) && record.files.some((f) => f.path === file.path));
    if (owner) {
      throw new ParleyError('CONFLICT', `${file.path} also holds the install for ${owner.client} (${owner.scope} scope, ${owner.root}); uninstall that one first. Nothing was written.`, { field: file.path });
    }
    const prior = previous?.files.find((f) => f.path === file.path);
    // A symlink leading out of the project (or home) is refused before the file is even read.
    writeTarget(file.path, bounds);
    checkFolders(file.path);
    const before = readText(file.path);
    const common = { path: file.path, before, ...(prior ? { previous: prior } : {}), ...(file.keepOutOfGit ? { keepOutOfGit: file.keepOutOfGit } : {}) };
    if (file.format === 'toml') return { ...common, after: addTomlBlock(file.path, before, file), additions: { format: 'toml', tomlBlock: true } };
    const doc = parseJsonObject(file.path, before ?? '');
    const additions = addToJson(file.path, doc, file, prior?.added);
    const after = serializeJson(doc, before === undefined ? NEW_FILE_STYLE : jsonStyleOf(before));
    return { ...common, after, additions };
  });
  return { record: { ...key, handle, files: [] }, changes, bounds };
}

function scopeWords(context: InstallContext): string {
  return context.scope === 'user' ? ' --user' : ` --dir ${shellQuote(context.root)}`;
}

/**
 * Writes the planned files (keeping each original once) and returns the
 * install's record for the ledger. Should a write fail half-way, the files
 * already written get their text back, so no change is left unrecorded.
 */
export function applyInstall(plan: Plan, home: string): InstallRecord {
  const done: Array<{ change: FileChange; made: string[] }> = [];
  const backups: string[] = [];
  try {
    const files = plan.changes.map((change): FileRecord => {
      const prior = change.previous;
      let backup = prior?.backup;
      let createdDirs = prior?.createdDirs ?? [];
      if (change.after !== change.before) {
        // The original is the text before the first install; a later run never replaces it.
        if (change.before !== undefined && !prior) backups.push((backup = keepBackup(home, change.path, change.before)));
        const made = makeParents(change.path);
        if (!prior) createdDirs = made;
        done.push({ change, made });
        writeText(change.path, change.after!, plan.bounds);
      }
      return {
        path: change.path,
        created: prior?.created ?? change.before === undefined,
        createdDirs,
        ...(backup === undefined ? {} : { backup }),
        // A file the user has edited since install keeps the digest of what install left, so that uninstall
        // takes out only Parley's entries rather than putting back the original over the user's edits.
        written: prior && change.before !== undefined && digest(change.before) !== prior.written ? prior.written : digest(change.after!),
        added: change.additions!,
      };
    });
    return { ...plan.record, files };
  } catch (error) {
    for (const { change, made } of done.reverse()) {
      if (change.before === undefined) removeFile(change.path, plan.bounds);
      else writeText(change.path, change.before, plan.bounds);
      removeEmptyFolders(made);
    }
    for (const backup of backups) dropBackup(backup);
    throw error;
  }
}

/**
 * What uninstall leaves in each file: the original when the file is as
 * install left it, else the file without Parley's entries (the user's later
 * edits kept). A file install created goes once nothing else is in it.
 */
export function planUninstall(record: InstallRecord, links: LinkChoice): FileChange[] {
  const bounds: WriteBounds = { root: record.root, followSymlinks: links.followSymlinks };
  return record.files.map((file): FileChange => {
    writeTarget(file.path, bounds);
    const before = readText(file.path);
    if (before === undefined) return { path: file.path, before, after: undefined, how: 'already gone' };
    const original = file.backup === undefined ? (file.created ? undefined : before) : readText(file.backup);
    if (file.backup !== undefined && original === undefined) {
      throw new ParleyError('CONFIG_INVALID', `The original of ${file.path} is no longer at ${file.backup}; nothing was changed. Remove Parley's entries from the file by hand, then delete its entry from the ledger.`, { field: file.backup });
    }
    if (digest(before) === file.written) {
      if (original === undefined) return { path: file.path, before, after: undefined, how: 'removed (install created it)' };
      return { path: file.path, before, after: original, how: original === before ? 'unchanged' : 'restored to its original' };
    }
    let after: string | undefined;
    if (file.added.format === 'toml') {
      after = removeTomlBlock(before);
      if (file.created && after.trim() === '') after = undefined;
    } else {
      const doc = parseJsonObject(file.path, before);
      const originalDoc: JsonObject | undefined = original === undefined ? undefined : parseJsonObject(file.backup ?? file.path, original);
      removeFromJson(doc, file.added, originalDoc);
      if (original !== undefined && sameJson(doc, originalDoc)) after = original;
      else if (file.created && Object.keys(doc).length === 0) after = undefined;
      else after = serializeJson(doc, jsonStyleOf(before));
    }
    const how = after === undefined ? 'removed (install created it, and nothing else is left in it)' : after === original ? 'restored to its original' : "Parley's entries removed, your later edits kept";
    return { path: file.path, before, after, how };
  });
}

export function applyUninstall(record: InstallRecord, changes: FileChange[], links: LinkChoice): void {
  const bounds: WriteBounds = { root: record.root, followSymlinks: links.followSymlinks };
  for (const change of changes) {
    if (change.after === undefined) {
      if (change.before !== undefined) removeFile(change.path, bounds);
    } else if (change.after !== change.before) writeText(change.path, change.after, bounds);
  }
  for (const file of record.files) {
    if (file.backup !== undefined) dropBackup(file.backup);
    removeEmptyFolders(file.createdDirs);
  }
}
