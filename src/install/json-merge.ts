import { ParleyError } from '../errors/parley-error.js';
import { sameJson, type JsonObject } from './json-document.js';
import type { FileAdditions, JsonFileSpec } from './spec.js';

/**
 * Parley's entries merged into a client's JSON config, and taken out again,
 * without touching anything else: other servers, other keys, other handlers
 * in the same events. `previous` is what an earlier install recorded for the
 * file: entries it added are Parley's to replace; anything else named
 * "parley" is the user's, and install refuses to overwrite it.
 */
const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

function objectAt(file: string, doc: JsonObject, keys: string[]): JsonObject {
  let node = doc;
  keys.forEach((key, index) => {
    if (node[key] === undefined) node[key] = {};
    const next = node[key];
    if (!isObject(next)) {
      throw new ParleyError('CONFIG_INVALID', `${file}: "${keys.slice(0, index + 1).join('.')}" is not a JSON object; fix it, then run the command again. Nothing was written.`, { field: file });
    }
    node = next;
  });
  return node;
}

/** The value at `keys`, or undefined when some step is missing or not an object. */
function valueAt(doc: JsonObject | undefined, keys: string[]): unknown {
  let node: unknown = doc;
  for (const key of keys) {
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** Takes the handlers running one of `commands` out of an event's list; a group left without handlers goes too. */
function removeHandlers(list: unknown[], commands: Set<string>, grouped: boolean): void {
  const ours = (handler: unknown): boolean => isObject(handler) && typeof handler.command === 'string' && commands.has(handler.command);
  for (let i = list.length - 1; i >= 0; i--) {
    const item = list[i];
    if (!grouped) {
      if (ours(item)) list.splice(i, 1);
      continue;
    }
    if (!isObject(item) || !Array.isArray(item.hooks)) continue;
    const kept = item.hooks.filter((handler) => !ours(handler));
    if (kept.length === item.hooks.length) continue;
    if (kept.length === 0) list.splice(i, 1);
    else item.hooks = kept;
  }
}

export function addToJson(file: string, doc: JsonObject, spec: JsonFileSpec, previous: FileAdditions | undefined): FileAdditions {
  const added: FileAdditions = { format: 'json' };
  const required = new Set(previous?.required ?? []);
  for (const [key, value] of Object.entries(spec.required ?? {})) {
    if (doc[key] !== undefined) continue;
    doc[key] = value;
    required.add(key);
  }
  if (required.size) added.required = [...required];

  if (spec.mcpServer) {
    const { path: keys, name, entry } = spec.mcpServer;
    const servers = objectAt(file, doc, keys);
    if (servers[name] !== undefined && !previous?.mcpServer) {
      throw new ParleyError('CONFLICT', `${file} already has an MCP server named "${name}" that "parley install" did not write; remove or rename it, then install again. Nothing was written.`, { field: file });
    }
    // Assigning in place keeps the entry where it was among the others.
    if (!sameJson(servers[name], entry)) servers[name] = entry;
    added.mcpServer = { path: keys, name };
  }

  if (spec.approval) {
    const { key, value, unlessTrue } = spec.approval;
    const list = doc[key];
    if (list !== undefined && !Array.isArray(list)) {
      throw new ParleyError('CONFIG_INVALID', `${file}: "${key}" is not a list; fix it, then run the command again. Nothing was written.`, { field: file });
    }
    const approvedAlready = (unlessTrue !== undefined && doc[unlessTrue] === true) || list?.includes(value) === true;
    if (!approvedAlready) {
      if (list) list.push(value);
      else doc[key] = [value];
    }
    // Recorded only when install added it: a user's own approval stays on uninstall.
    if (!approvedAlready || previous?.approval) added.approval = { key, value };
  }

  if (spec.hooks) {
    const { grouped, entries } = spec.hooks;
    const now = new Set(entries.map((entry) => entry.command));
    const stale = new Set((previous?.hooks?.commands ?? []).filter((command) => !now.has(command)));
    const hooks = objectAt(file, doc, ['hooks']);
    if (stale.size) for (const list of Object.values(hooks)) if (Array.isArray(list)) removeHandlers(list, stale, grouped);
    for (const entry of entries) {
      if (hooks[entry.event] === undefined) hooks[entry.event] = [];
      const list = hooks[entry.event];
      if (!Array.isArray(list)) {
        throw new ParleyError('CONFIG_INVALID', `${file}: "hooks.${entry.event}" is not a list; fix it, then run the command again. Nothing was written.`, { field: file });
      }
      if (list.some((item) => sameJson(item, entry.item))) continue;
      removeHandlers(list, new Set([entry.command]), grouped);
      list.push(entry.item);
    }
    added.hooks = { grouped, commands: [...now] };
  }
  return added;
}

/** Deletes the empty objects along `keys` that the original file did not have. */
function prune(doc: JsonObject, keys: string[], original: JsonObject | undefined): void {
  for (let depth = keys.length; depth >= 1; depth--) {
    const at = keys.slice(0, depth);
    const value = valueAt(doc, at);
    const empty = (isObject(value) && Object.keys(value).length === 0) || (Array.isArray(value) && value.length === 0);
    if (!empty || valueAt(original, at) !== undefined) return;
    delete (valueAt(doc, at.slice(0, -1)) as JsonObject)[at.at(-1)!];
  }
}

/** Takes out exactly what `added` says install put in, keeping whatever the user has changed since. */
export function removeFromJson(doc: JsonObject, added: FileAdditions, original: JsonObject | undefined): void {
  if (added.mcpServer) {
    const servers = valueAt(doc, added.mcpServer.path);
    if (isObject(servers)) delete servers[added.mcpServer.name];
    prune(doc, added.mcpServer.path, original);
  }
  if (added.approval) {
    const list = doc[added.approval.key];
    if (Array.isArray(list)) {
      const at = list.indexOf(added.approval.value);
      if (at >= 0) list.splice(at, 1);
    }
    prune(doc, [added.approval.key], original);
  }
  if (added.hooks) {
    const hooks = doc.hooks;
    if (isObject(hooks)) {
      for (const event of Object.keys(hooks)) {
        const list = hooks[event];
        if (!Array.isArray(list)) continue;
        removeHandlers(list, new Set(added.hooks.commands), added.hooks.grouped);
        prune(doc, ['hooks', event], original);
      }
    }
    prune(doc, ['hooks'], original);
  }
  // Keys the format needs (Cursor's "version") go only with the last of the file's content.
  const required = (added.required ?? []).filter((key) => valueAt(original, [key]) === undefined);
  if (required.length && Object.keys(doc).every((key) => required.includes(key))) for (const key of required) delete doc[key];
}
