import { describe, expect, it } from 'vitest';
import * as D from '../../src/config/defaults.js';
import { configKeys, defaultConfig } from '../../src/config/load.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { readDoc } from './pages.js';

const valueAt = (object: unknown, key: string): unknown => key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], object);

/** The number schema of a config key, for its bounds: the schema walked by the key's parts, past defaults and checks. */
function numberSchemaOf(key: string): { minValue: number | null; maxValue: number | null } {
  type Node = { _zod: { def: { type: string; innerType?: Node; in?: Node; shape?: Record<string, Node> } } };
  const unwrap = (node: Node): Node => {
    let current = node;
    for (;;) {
      const def = current._zod.def;
      if (def.innerType) current = def.innerType;
      else if (def.type === 'pipe' && def.in) current = def.in;
      else return current;
    }
  };
  let node = ConfigSchema as unknown as Node;
  for (const part of key.split('.')) node = unwrap(unwrap(node)._zod.def.shape![part]!);
  return node as unknown as { minValue: number | null; maxValue: number | null };
}

/** The rows of docs/limits.md's tables that name a config key: key → [default cell, range cell]. */
function limitRows(): Map<string, [string, string]> {
  const rows = new Map<string, [string, string]>();
  for (const [, key, value, range] of readDoc('docs/limits.md').matchAll(/^\| `([a-zA-Z.]+)` \|([^|]*)\|([^|]*)\|/gm)) rows.set(key!, [value!.trim(), range!.trim()]);
  return rows;
}

describe('docs', () => {
  it('docs - the config file docs/configuration.md shows holds the defaults, and only keys that exist', () => {
    const block = /```json\n([\s\S]*?)```/.exec(readDoc('docs/configuration.md'))?.[1];
    const shown = JSON.parse(block!) as Record<string, unknown>;
    const keys = new Set(configKeys().map((k) => k.key));
    const leaves: Array<[string, unknown]> = [];
    const walk = (node: unknown, prefix: string[]): void => {
      if (node !== null && typeof node === 'object' && !Array.isArray(node)) for (const [k, v] of Object.entries(node)) walk(v, [...prefix, k]);
      else leaves.push([prefix.join('.'), node]);
    };
    walk(shown, []);
    expect(leaves.length).toBeGreaterThan(20);
    for (const [key, value] of leaves) {
      expect(keys, key).toContain(key);
      expect(value, key).toEqual(valueAt(defaultConfig(), key));
    }
  });

  it('docs - docs/limits.md lists every config key with its default and the range the config accepts', () => {
    const rows = limitRows();
    const config = defaultConfig();
    for (const { key, type } of configKeys()) {
      const row = rows.get(key);
      expect(row, `docs/limits.md has no row for ${key}`).toBeDefined();
      const [value, range] = row!;
      // The default is written as JSON in code, maybe followed by a unit in words: `1048576` (1 MiB).
      const written = /^`([^`]*)`/.exec(value)?.[1];
      expect(written, `${key}: default cell ${value}`).toBeDefined();
      expect(JSON.parse(written!), key).toEqual(valueAt(config, key));
      if (type !== 'number') continue;
      const { minValue, maxValue } = numberSchemaOf(key);
      const [low, high] = range.split('–');
      expect(Number(low), `${key}: lowest value`).toBe(minValue);
      // A key bounded by another one names it instead of a number.
      if (maxValue !== null && maxValue < Number.MAX_SAFE_INTEGER) expect(Number(high), `${key}: highest value`).toBe(maxValue);
      else expect(high, `${key}: bounded by another key`).toMatch(/^`[a-zA-Z.]+`$/);
    }
    // Nothing on the page names a key that does not exist.
    const keys = new Set(configKeys().map((k) => k.key));
    for (const key of rows.keys()) expect(keys, `docs/limits.md names ${key}`).toContain(key);
  });

  it('docs - the limits fixed in code are the values docs/limits.md gives', () => {
    const page = readDoc('docs/limits.md');
    const row = (label: string): string => {
      const found = page.split('\n').find((line) => line.startsWith(`| ${label} |`));
      expect(found, `docs/limits.md has a row "${label}"`).toBeDefined();
      return found!;
    };
    expect(row('inbox read, take or delivery list')).toContain(`${D.DEFAULT_INBOX_LIMIT} items by default, at most ${D.MAX_INBOX_LIMIT}`);
    expect(row('history, new messages, meeting hear')).toContain(`${D.DEFAULT_READ_LIMIT} events by default, at most ${D.MAX_READ_LIMIT}`);
    expect(row('`parley history`')).toContain(`${D.DEFAULT_CLI_HISTORY_LIMIT} events`);
    expect(row('`parley tail THREAD`')).toContain(`${D.DEFAULT_TAIL_LAST} events`);
    expect(row('`parley stop`')).toContain(`${D.DEFAULT_STOP_TIMEOUT_MS} ms`);
    expect(row('hook context')).toContain(`${D.HOOK_MAX_ITEMS} items in ${D.HOOK_CONTEXT_MAX_CHARS} characters`);
    expect(row('hook request')).toContain(`${D.HOOK_REQUEST_TIMEOUT_MS} ms (a stop: ${D.MAX_AGENTS_STAY_AVAILABLE_SECONDS} s + ${D.HOOK_STOP_TIMEOUT_MARGIN_MS / 1000} s)`);
    expect(row('middleware: new items per call')).toContain(`| ${D.DEFAULT_MAX_NEW_MESSAGES} |`);
    expect(row('middleware: hub timeout')).toContain(`${D.DEFAULT_MIDDLEWARE_HUB_TIMEOUT_MS} ms`);
    expect(row('agent loop: model calls per turn')).toContain(`| ${D.AGENT_MAX_STEPS_PER_TURN} |`);
    expect(row('agent loop: one wait')).toContain(`${D.AGENT_WAIT_MS} ms`);
    expect(row('agent loop: relevance budget')).toContain(`${D.AGENT_RELEVANCE_BUDGET_TOKENS} tokens`);
    expect(row('agent loop: history')).toContain(`${D.AGENT_MAX_HISTORY_MESSAGES} messages`);
    expect(row('agent loop: retry after the hub went away')).toContain(`${D.AGENT_HUB_RETRY_FIRST_MS} ms doubling to ${D.AGENT_HUB_RETRY_MAX_MS} ms`);
    expect(row('coordinator: kill grace after its timeout')).toContain(`${D.COORDINATOR_KILL_GRACE_MS} ms`);
    expect(row('coordinator: thread events shown to an adapter')).toContain(`${D.COORDINATOR_CONTEXT_EVENTS} newest`);
    expect(row('signing: events waiting for the worker')).toContain(`${D.DEFAULT_SIGNING_MAX_IN_FLIGHT}`);
  });
});
